/** Asking the client in-band on the 2026-07-28 era: the `input_required` result, and the answers a retry carries. */
import { asRecord } from '../kit/records.js';
import type { ElicitationRequest, ElicitationResponse, InputRound, ToolResult } from '../contract/types.js';

export interface InputRequiredOptions {
  /**
   * Opaque state the client echoes byte for byte on its retry
   * (`ctx.inputRound.requestState`): bind the answers to this question with
   * it. Round-trips through the client, so it must hold nothing the client
   * may not see, and be checked, not trusted, when it comes back.
   */
  readonly requestState?: string | undefined;
}

/**
 * The result that asks the client for input on the 2026-07-28 era
 * (`resultType: "input_required"`): one form elicitation per key. The
 * client asks its user and retries the same call with the answers, which
 * arrive in `ctx.inputRound.responses` under the same keys. Returned by a
 * middleware or handler in place of a tool result; only meaningful when
 * `ctx.inputRound` is defined.
 */
export function inputRequiredResult(
  requests: Readonly<Record<string, ElicitationRequest>>,
  options: InputRequiredOptions = {},
): ToolResult {
  const inputRequests = Object.fromEntries(
    Object.entries(requests).map(([key, request]) => [
      key,
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: request.message, requestedSchema: request.requestedSchema },
      },
    ]),
  );
  // The wire shape of MCP's InputRequiredResult: it has no `content`.
  const state = options.requestState === undefined ? {} : { requestState: options.requestState };
  return { resultType: 'input_required', inputRequests, ...state } as unknown as ToolResult;
}

/** Whether a result asks the client for input (see {@link inputRequiredResult}). */
export function isInputRequiredResult(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { resultType?: unknown }).resultType === 'input_required'
  );
}

/**
 * The client's answer to the elicitation asked under `key`, from a retried
 * request; `undefined` when it carries none (a first attempt) or something
 * that is not an elicitation answer. Untrusted input: check `content`.
 */
export function elicitationAnswer(round: InputRound | undefined, key: string): ElicitationResponse | undefined {
  const entry = round?.responses[key];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { action, content } = entry as { action?: unknown; content?: unknown };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return undefined;
  return { action, content: asRecord(content) };
}
