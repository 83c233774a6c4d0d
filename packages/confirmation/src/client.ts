/**
 * The client half of `@ext/confirmation` (the `./client` entry): the
 * descriptor, and helpers that ask the host's user and retry with the token,
 * approve a batch, or request a grant, or answer the server's in-band prompt.
 */
import {
  ConfigurationError,
  extensionId,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type StructuredError,
  type ToolResult,
} from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { isTokenShaped } from './logic.js';
import {
  batchConfirmation,
  callConfirmation,
  grantConfirmation,
  pendingConfirmation,
  type ConfirmCallback,
  type PendingConfirmation,
} from './requests.js';
import {
  CONFIRMATION_ID,
  CONFIRMATION_PACKAGE,
  CONFIRMATION_WIRE_VERSION,
  ConfirmationServerSettingsSchema,
  RISK_LEVELS,
  type ApproveResult,
  type ConfirmationRequiredMeta,
  type GrantResult,
  type RiskLevel,
} from './schema.js';

export type {
  BatchConfirmation,
  ConfirmCallback,
  ConfirmationRequest,
  GrantConfirmation,
  PendingConfirmation,
} from './requests.js';
export {
  confirmationElicitationHandler,
  parseConfirmationElicitation,
  type ConfirmationElicitationHandler,
  type ElicitationAnswer,
  type ElicitationFallback,
  type SdkElicitationRequest,
} from './elicitation-handler.js';

/** The client half: advertises the extension so the server holds gated calls for a token (path b). */
export function confirmationClient(): ClientExtension {
  return {
    side: 'client',
    name: CONFIRMATION_PACKAGE,
    ids: [CONFIRMATION_ID],
    settings: { version: CONFIRMATION_WIRE_VERSION },
    peerSettings: ConfirmationServerSettingsSchema,
  };
}

/** The `confirmation_required` entry of a result, or `undefined` when the call was not held. */
export function getConfirmationRequired(
  result: ToolResult,
  id: string = CONFIRMATION_ID,
): ConfirmationRequiredMeta | undefined {
  const meta = result._meta?.[id];
  if (!isRecord(meta) || meta.status !== 'confirmation_required') return undefined;
  const { confirmation_token: token, tool, message, risk_level: risk, expires_at: expires } = meta;
  if (!isTokenShaped(token) || typeof tool !== 'string' || typeof message !== 'string' || typeof expires !== 'string')
    return undefined;
  if (typeof risk !== 'string' || !(RISK_LEVELS as readonly string[]).includes(risk)) return undefined;
  return {
    status: 'confirmation_required',
    confirmation_token: token,
    tool,
    message,
    risk_level: risk as RiskLevel,
    expires_at: expires,
  };
}

const ERRORS_ID = extensionId('errors');

/** The result the helper returns when the user says no: shaped like a server's structured error. */
function declinedResult(tool: string): ToolResult {
  const error: StructuredError = {
    code: 'CONFIRMATION_DECLINED',
    message: `The user did not approve "${tool}"; nothing was done`,
    category: 'permanent',
    user_actionable: true,
    suggestion: 'Do not retry unless the user asks for it again.',
    details: { tool },
  };
  return {
    content: [{ type: 'text', text: `${error.message}. ${error.suggestion ?? ''}`.trim() }],
    isError: true,
    _meta: { [ERRORS_ID]: error },
  };
}

function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

function retryMeta(client: ExtendedClient, options: CallToolOptions, entry: Record<string, unknown>): CallToolOptions {
  const id = client.negotiated(CONFIRMATION_ID)?.id ?? CONFIRMATION_ID;
  return { ...options, meta: { ...(options.meta ?? {}), [id]: entry } };
}

export interface ConfirmedCallOptions extends CallToolOptions {
  readonly confirm: ConfirmCallback;
}

/**
 * Calls a tool and, when the server holds it for confirmation (path b),
 * asks the user through `confirm` and retries once with the token. A
 * refusal by the server (path c) or by the user comes back as an error
 * result; nothing runs without a "yes". In-band prompts (path a) reach the
 * host through {@link confirmationElicitationHandler} instead.
 */
export async function callWithConfirmation(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown> = {},
  options: ConfirmedCallOptions,
): Promise<ToolResult> {
  const { confirm, ...callOptions } = options;
  if (typeof confirm !== 'function')
    throw new ConfigurationError('INVALID_OPTION', 'callWithConfirmation: confirm must be a function');
  const id = client.negotiated(CONFIRMATION_ID)?.id;
  const first = await client.callTool(name, args, callOptions);
  const held = id === undefined ? undefined : getConfirmationRequired(first, id);
  if (held === undefined) return first;
  const approved = await confirm(
    callConfirmation('token', {
      tool: name,
      arguments: args,
      message: held.message,
      riskLevel: held.risk_level,
      expiresAt: held.expires_at,
    }),
  );
  if (!approved) return declinedResult(name);
  return client.callTool(name, args, retryMeta(client, callOptions, { confirmation_token: held.confirmation_token }));
}

/** One call of a batch. */
export interface BatchCall {
  readonly name: string;
  readonly arguments?: Record<string, unknown> | undefined;
}

/**
 * Calls several tools and shows the user one dialog for every call the
 * server held (a bulk operation of 50 deletions is one question); on
 * approval, approves the tokens in one `<id>/approve` request (audited by
 * the server) and retries each approved call. Results keep the input order.
 */
export async function callManyWithConfirmation(
  client: ExtendedClient,
  calls: readonly BatchCall[],
  options: ConfirmedCallOptions,
): Promise<ToolResult[]> {
  const { confirm, ...callOptions } = options;
  const id = client.negotiated(CONFIRMATION_ID)?.id;
  const firsts = await Promise.all(calls.map((call) => client.callTool(call.name, call.arguments ?? {}, callOptions)));
  const held = firsts.map((result) => (id === undefined ? undefined : getConfirmationRequired(result, id)));
  const pending: PendingConfirmation[] = [];
  held.forEach((meta, index) => {
    const call = calls[index];
    if (meta !== undefined && call !== undefined) {
      pending.push(
        pendingConfirmation({
          tool: call.name,
          arguments: call.arguments ?? {},
          message: meta.message,
          riskLevel: meta.risk_level,
          expiresAt: meta.expires_at,
        }),
      );
    }
  });
  if (pending.length === 0 || id === undefined) return firsts;
  const risk = pending.reduce<RiskLevel>(
    (top, item) => (riskRank(item.riskLevel) > riskRank(top) ? item.riskLevel : top),
    'safe',
  );
  const approved = await confirm(batchConfirmation(pending, risk));
  if (!approved)
    return firsts.map((result, index) =>
      held[index] === undefined ? result : declinedResult(calls[index]?.name ?? ''),
    );
  const tokens = held.flatMap((meta) => (meta === undefined ? [] : [meta.confirmation_token]));
  const outcome = (await client.request(`${id}/approve`, { confirmation_tokens: tokens })) as unknown as ApproveResult;
  const accepted = new Set(outcome.approved);
  return Promise.all(
    firsts.map(async (result, index) => {
      const meta = held[index];
      const call = calls[index];
      if (meta === undefined || call === undefined) return result;
      if (!accepted.has(meta.confirmation_token)) {
        const rejected = outcome.rejected.find((item) => item.confirmation_token === meta.confirmation_token);
        const error: StructuredError = {
          code: rejected?.code ?? 'CONFIRMATION_TOKEN_INVALID',
          message: rejected?.message ?? 'The server did not approve this call',
          category: 'permanent',
        };
        return {
          content: [{ type: 'text', text: error.message }],
          isError: true,
          _meta: { [ERRORS_ID]: error },
        } satisfies ToolResult;
      }
      return client.callTool(
        call.name,
        call.arguments ?? {},
        retryMeta(client, callOptions, { confirmation_token: meta.confirmation_token }),
      );
    }),
  );
}

export interface GrantRequestOptions {
  readonly maxCalls: number;
  readonly durationSeconds: number;
  readonly confirm: ConfirmCallback;
}

/**
 * Asks the user once for a bounded, time-boxed approval of `maxCalls` calls
 * of one tool, then requests the grant from the server. `undefined` when
 * the user declines. Use the grant with {@link grantMeta}.
 */
export async function requestGrant(
  client: ExtendedClient,
  tool: string,
  options: GrantRequestOptions,
): Promise<GrantResult | undefined> {
  const id = client.negotiated(CONFIRMATION_ID)?.id;
  if (id === undefined)
    throw new ConfigurationError(
      'NOT_NEGOTIATED',
      'requestGrant: the server did not negotiate the confirmation extension',
    );
  const approved = await options.confirm(grantConfirmation(tool, options.maxCalls, options.durationSeconds));
  if (!approved) return undefined;
  return (await client.request(`${id}/grant`, {
    tool,
    max_calls: options.maxCalls,
    duration_seconds: options.durationSeconds,
  })) as unknown as GrantResult;
}

/** `params._meta` entries that draw one call on a grant; spread into `CallToolOptions.meta`. */
export function grantMeta(
  grant: Pick<GrantResult, 'grant_id'>,
  id: string = CONFIRMATION_ID,
): Record<string, { grant_id: string }> {
  return { [id]: { grant_id: grant.grant_id } };
}
