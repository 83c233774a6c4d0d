/**
 * The tool-call middleware: opens the token the client sent, hands the
 * state to the handler through its slot, and seals what the handler set
 * into `result._meta`.
 */
import { ExtensionError, extensionId, type ToolMiddleware } from '@ext/core';
import { withResultMeta } from '@ext/core/kit';
import { createSlot, setSlot, type SlotOutcome } from './locals.js';
import { decodeState, invalidTokenError, parseRequestMeta, refusalResult } from './logic.js';
import type { ResolvedOptions } from './options.js';
import { SESSION_STATE_ID, type SessionStateClientSettings, type SessionStateResultMeta } from './schema.js';
import { openToken, sealedLength, sealToken, type TokenBinding } from './token.js';

/** The extension whose structured errors carry the refusal's code to the client (`ERRORS_ID` of `@ext/errors`). */
const ERRORS_ID = extensionId('errors');

/** Opens the token of a request, if it carries one; the refusal otherwise. */
function openIncoming(
  raw: unknown,
  id: string,
  binding: TokenBinding,
  config: ResolvedOptions,
): { plaintext: string; expiresAt: number } | undefined | ExtensionError {
  const limits = { maxTokenBytes: config.maxTokenBytes, id };
  const parsed = parseRequestMeta(raw, id);
  if (!parsed.ok)
    return invalidTokenError('malformed', {
      ...limits,
      message: parsed.message,
      field: parsed.field,
      pointer: parsed.pointer,
    });
  if (parsed.token === undefined) return undefined;
  const opened = openToken(config.ring, parsed.token, binding, {
    now: config.now(),
    maxTokenBytes: config.maxTokenBytes,
  });
  if (!opened.ok) return invalidTokenError(opened.reason, limits);
  const decoded = decodeState(opened.plaintext);
  // Sealed by this server, yet no longer what its schema accepts (the state's shape changed since).
  if (decoded === undefined || config.check?.(decoded.value) !== undefined)
    return invalidTokenError('invalid_state', limits);
  return { plaintext: opened.plaintext, expiresAt: opened.expiresAt };
}

/**
 * The result entry for what the handler did: a new token when it set state
 * (or, with `rolling`, re-sealed what it kept), the order to drop the token
 * when it cleared state, nothing otherwise.
 */
function resultEntry(
  outcome: SlotOutcome,
  hadToken: boolean,
  config: ResolvedOptions,
  binding: TokenBinding,
  limit: number,
): SessionStateResultMeta | undefined {
  const seal = (plaintext: string, changed: boolean): SessionStateResultMeta => {
    const expiresAt = config.now() + config.ttlMs;
    return {
      session_state: sealToken(config.ring, plaintext, expiresAt, binding),
      expires_at: new Date(expiresAt).toISOString(),
      state_changed: changed,
    };
  };
  switch (outcome.kind) {
    case 'set':
      return seal(outcome.plaintext, true);
    case 'cleared':
      return { state_changed: true };
    case 'unchanged': {
      if (!config.rolling || !hadToken || outcome.plaintext === undefined) return undefined;
      // After a rotation to a longer key id the same state may no longer fit; the client then keeps its token.
      if (sealedLength(config.ring.sealingKeyId, Buffer.byteLength(outcome.plaintext, 'utf8')) > limit)
        return undefined;
      return seal(outcome.plaintext, false);
    }
  }
}

/** The middleware of `sessionStateServer()` under `config`. */
export function sessionStateMiddleware(config: ResolvedOptions): ToolMiddleware {
  return async (call, ctx, next) => {
    const negotiated = ctx.negotiated<SessionStateClientSettings>(SESSION_STATE_ID);
    // Where the client's capabilities cannot be known (legacy stateless HTTP), act as if it spoke the extension.
    const enabled = negotiated !== undefined || ctx.peerExtensions === undefined;
    const id = negotiated?.id ?? SESSION_STATE_ID;
    const clientLimit = negotiated?.settings.max_token_bytes;
    const limit = clientLimit === undefined ? config.maxTokenBytes : Math.min(config.maxTokenBytes, clientLimit);
    const binding: TokenBinding = { serverName: config.serverName ?? '', subject: config.subject(ctx) };

    let incoming: { plaintext: string; expiresAt: number } | undefined;
    if (enabled) {
      const opened = openIncoming(call.meta[id], id, binding, config);
      if (ExtensionError.isInstance(opened)) {
        // A client that reads structured errors learns the code from them; any other is told in this extension's own terms.
        if (ctx.negotiated(ERRORS_ID) !== undefined) throw opened;
        return refusalResult(opened, id);
      }
      incoming = opened;
    }

    const slot = createSlot({
      enabled,
      incoming,
      maxTokenBytes: limit,
      sealingKeyId: config.ring.sealingKeyId,
      check: config.check,
    });
    setSlot(ctx, slot);
    // A handler that throws discards what it set: nothing below is reached.
    const result = await next();
    // Nothing of this extension reaches a client that did not advertise it; an author's own entry never passes for ours.
    if (!enabled) return withResultMeta(result, id, undefined);
    return withResultMeta(result, id, resultEntry(slot.outcome(), incoming !== undefined, config, binding, limit));
  };
}
