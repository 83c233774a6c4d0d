/**
 * Path (a) on the client: a handler for the SDK client's `elicitation/create`
 * requests that recognises the server's confirmation prompt and asks the
 * host's `ConfirmCallback`. It is registered on either SDK line as it is,
 * and still takes the bare prompt (`{ message, requestedSchema }`).
 */
import { isRecord } from '@ext/core/kit';
import { type ElicitationRequest, type ElicitationResponse } from '@ext/core';
import { callConfirmation, pendingConfirmation, type ConfirmCallback, type PendingConfirmation } from './requests.js';
import type { RiskLevel } from './schema.js';

/** An `elicitation/create` request as both SDK lines hand it to a client's request handler. */
export interface SdkElicitationRequest {
  readonly method?: string | undefined;
  readonly params: {
    readonly message: string;
    /** Absent on URL-mode elicitations, which are never confirmation prompts. */
    readonly requestedSchema?: unknown;
  };
}

/**
 * An answer in the shape both SDK lines' clients send back (`ElicitResult`).
 * A type alias, not an interface: the SDKs' result types have an index
 * signature, which only an alias satisfies implicitly.
 */
export type ElicitationAnswer = {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, string | number | boolean | string[]> | undefined;
};

/**
 * Assignable to v1 `client.setRequestHandler(ElicitRequestSchema, handler)`
 * and v2 `client.setRequestHandler('elicitation/create', handler)`; also
 * callable with the bare prompt.
 */
export type ConfirmationElicitationHandler = (
  request: SdkElicitationRequest | ElicitationRequest,
) => Promise<ElicitationAnswer>;

/** Handles the elicitations that are not confirmation prompts. */
export type ElicitationFallback = (request: ElicitationRequest) => Promise<ElicitationAnswer | ElicitationResponse>;

const ELICITATION_DESCRIPTION = /^Approve this (safe|reversible|destructive) operation: (.+)$/;

/** Reads a server's confirmation prompt (path a); `undefined` for any other elicitation. */
export function parseConfirmationElicitation(request: ElicitationRequest): PendingConfirmation | undefined {
  const properties: unknown = isRecord(request.requestedSchema) ? request.requestedSchema.properties : undefined;
  if (!isRecord(properties) || Object.keys(properties).length !== 1) return undefined;
  const confirm = properties.confirm;
  if (!isRecord(confirm) || confirm.type !== 'boolean' || typeof confirm.description !== 'string') return undefined;
  const match = ELICITATION_DESCRIPTION.exec(confirm.description);
  if (match === null || typeof request.message !== 'string') return undefined;
  const message = request.message.replace(/\n\nRisk level: \w+\.$/, '');
  return pendingConfirmation({
    tool: match[2] ?? '',
    arguments: {},
    message,
    riskLevel: (match[1] ?? 'destructive') as RiskLevel,
  });
}

/** The prompt itself, whether the SDK's whole request or (as before) only its params came in. */
function promptOf(request: SdkElicitationRequest | ElicitationRequest): ElicitationRequest {
  const params = 'params' in request && isRecord(request.params) ? request.params : request;
  return params as ElicitationRequest;
}

/** The fallback's answer as an SDK client sends it: form content holds strings, numbers, booleans and string lists. */
function asAnswer(response: ElicitationAnswer | ElicitationResponse): ElicitationAnswer {
  if (response.content === undefined) return { action: response.action };
  return { action: response.action, content: response.content as ElicitationAnswer['content'] };
}

/**
 * An elicitation handler for the host's client (path a): a confirmation
 * prompt goes to `confirm`, anything else to `fallback` (default: decline).
 * Register it directly: `client.setRequestHandler(ElicitRequestSchema, handler)`
 * (v1) or `client.setRequestHandler('elicitation/create', handler)` (v2).
 */
export function confirmationElicitationHandler(
  confirm: ConfirmCallback,
  fallback?: ElicitationFallback,
): ConfirmationElicitationHandler {
  return async (request) => {
    const prompt = promptOf(request);
    const pending = parseConfirmationElicitation(prompt);
    if (pending === undefined) return fallback ? asAnswer(await fallback(prompt)) : { action: 'decline' };
    const approved = await confirm(callConfirmation('elicitation', pending));
    return approved ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  };
}
