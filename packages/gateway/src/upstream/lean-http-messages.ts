/**
 * The JSON-RPC messages of a lean call's answer (`lean-http.ts`), read as
 * the SDK client (`@modelcontextprotocol/client` 2.x) reads them: each
 * checked against its JSON-RPC schema, a tool-list change dispatched, the
 * response to the call turned into its result (`resultType` lifted,
 * `content` defaulted, the text fallback of a non-object
 * `structuredContent`) or its error, with the errors the SDK throws for
 * malformed ones.
 */
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  isCallToolResult,
  parseJSONRPCMessage,
  type CallToolResult,
} from '@modelcontextprotocol/client';

/** The one method a lean call makes. */
export const CALL_METHOD = 'tools/call';
const TOOLS_CHANGED = 'notifications/tools/list_changed';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the SDK client makes of a `tools/call` result on 2026-07-28 (its codec's decode, then its checks). */
export function decodeCallResult(raw: unknown): CallToolResult {
  if (!isPlainObject(raw))
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${CALL_METHOD}: not an object`, {
      method: CALL_METHOD,
    });
  const resultType = raw.resultType;
  if (resultType === undefined)
    throw new SdkError(
      SdkErrorCode.InvalidResult,
      `Invalid result for ${CALL_METHOD}: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it (the absent-means-complete bridge applies only to earlier-revision servers)`,
      { method: CALL_METHOD, violation: 'missing-resultType' },
    );
  if (typeof resultType !== 'string')
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${CALL_METHOD}: non-string resultType`, {
      method: CALL_METHOD,
      resultType,
    });
  if (resultType !== 'complete')
    throw new SdkError(
      SdkErrorCode.UnsupportedResultType,
      `Unsupported result type '${resultType}' for ${CALL_METHOD}`,
      {
        resultType,
        method: CALL_METHOD,
      },
    );
  const lifted: Record<string, unknown> = { ...raw };
  delete lifted.resultType;
  lifted.content ??= [];
  if (!isCallToolResult(lifted))
    throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${CALL_METHOD}: not a tool result`, {
      method: CALL_METHOD,
    });
  return withTextFallback(lifted);
}

/** A `structuredContent` that is no object also comes as text, unless some text is there already. */
function withTextFallback(result: CallToolResult): CallToolResult {
  const structured: unknown = result.structuredContent;
  if (structured === undefined || isPlainObject(structured)) return result;
  if (result.content.some((block) => block.type === 'text')) return result;
  return { ...result, content: [...result.content, { type: 'text', text: JSON.stringify(structured) }] };
}

/** What one JSON-RPC message of the answer means for the call `id`: its outcome, or nothing yet. */
export type Outcome = { readonly result: CallToolResult } | undefined;

function hasOnlyKeys(message: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(message).every((key) => allowed.includes(key));
}

/**
 * Whether `message` is one the SDK's JSON-RPC schema takes as it is: a
 * response with an object result or a well-formed error, or a
 * notification. Anything else goes through that schema, which throws what
 * the SDK throws.
 */
function isPlainMessage(message: unknown): message is Record<string, unknown> {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return false;
  if ('method' in message)
    return (
      !('id' in message) &&
      typeof message.method === 'string' &&
      (message.params === undefined || isPlainObject(message.params)) &&
      hasOnlyKeys(message, ['jsonrpc', 'method', 'params'])
    );
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return false;
  if ('result' in message) return isPlainObject(message.result) && hasOnlyKeys(message, ['jsonrpc', 'id', 'result']);
  const error = message.error;
  return (
    isPlainObject(error) &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string' &&
    hasOnlyKeys(message, ['jsonrpc', 'id', 'error'])
  );
}

/** `message` as the SDK's schema reads it: as it is when plainly well-formed, else parsed (which throws what the SDK throws). */
export function parsed(message: unknown): Record<string, unknown> {
  return isPlainMessage(message) ? message : parseJSONRPCMessage(message);
}

/**
 * Reads the JSON-RPC messages of an answer for the call `id`: notifications
 * are dispatched as the SDK client of the gateway would (only a tool-list
 * change has a handler), the response ends the call, anything else is let
 * go (the SDK's client answers nothing else either).
 */
export class Reader {
  constructor(
    private readonly id: number,
    private readonly onToolsChanged: () => void,
  ) {}

  /** A message `parsed` already: the call's outcome, if it is the response to it. */
  message(message: Record<string, unknown>): Outcome {
    if ('method' in message) {
      if (message.method === TOOLS_CHANGED && !('id' in message)) this.onToolsChanged();
      return undefined;
    }
    if (message.id !== this.id) return undefined;
    const error = message.error;
    if (isPlainObject(error)) throw ProtocolError.fromError(error.code as number, error.message as string, error.data);
    return { result: decodeCallResult(message.result) };
  }

  /** A whole JSON body: one message or a batch, each parsed as the SDK does (a malformed one fails the call). */
  body(body: unknown): Outcome {
    const messages = (Array.isArray(body) ? body : [body]).map(parsed);
    for (const message of messages) {
      const outcome = this.message(message);
      if (outcome !== undefined) return outcome;
    }
    return undefined;
  }

  /** One event of a stream: a malformed message is let go, as the SDK's transport does (it only logs it). */
  event(data: string): Outcome {
    let message: Record<string, unknown>;
    try {
      message = parsed(JSON.parse(data));
    } catch {
      return undefined;
    }
    return this.message(message);
  }
}
