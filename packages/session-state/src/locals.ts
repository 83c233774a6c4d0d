/** The handle a tool handler reads and sets its session state through, and its slot on the call's `ctx.locals`. */
import { ConfigurationError, type RequestContext } from '@ext/core';
import { defineLocal, type JsonValue } from '@ext/core/kit';
import { decodeState, encodeState, invalidValueError, tooLargeError } from './logic.js';
import { SESSION_STATE_PACKAGE } from './schema.js';
import { sealedLength } from './token.js';

// Keyed by `Symbol.for`, so duplicate copies of this package agree on the slot.
const SLOT = defineLocal<Slot>('session-state/slot');

/** The session state of the current call, as a tool handler sees it. */
export interface SessionStateHandle<T extends JsonValue = JsonValue> {
  /**
   * Whether the client keeps state: it negotiated the extension (or the
   * server cannot know, on legacy stateless HTTP). When `false`, `get()`
   * starts empty and what `set()` stores lasts only for this call.
   */
  readonly enabled: boolean;
  /** When the token the client sent expires; `undefined` when it sent none. */
  readonly expiresAt: Date | undefined;
  /** The largest sealed token this call may produce (server and client limits). */
  readonly maxTokenBytes: number;
  /** The current state (a fresh copy each time), or `undefined` when there is none. */
  get(): T | undefined;
  /**
   * Replaces the state; it is sealed into the result when the handler
   * returns. Throws `SESSION_STATE_TOO_LARGE` (naming the limit) at once
   * when the sealed token would exceed `maxTokenBytes`, and
   * `SESSION_STATE_INVALID_VALUE` for a value that is not JSON or that the
   * server's `schema` refuses.
   */
  set(value: T): void;
  /** Drops the state: the client is told to forget its token. */
  clear(): void;
}

/** What the middleware learns from the handle after the handler returned. */
export type SlotOutcome =
  | { readonly kind: 'unchanged'; readonly plaintext: string | undefined }
  | { readonly kind: 'set'; readonly plaintext: string }
  | { readonly kind: 'cleared' };

export interface SlotConfig {
  readonly enabled: boolean;
  /** The opened incoming state's JSON, if a token came. */
  readonly incoming?: { readonly plaintext: string; readonly expiresAt: number } | undefined;
  readonly maxTokenBytes: number;
  /** Id of the key that will seal (its length counts towards the size). */
  readonly sealingKeyId: string;
  /** The server's state schema, as a check returning a reason or `undefined`. */
  readonly check?: ((value: JsonValue) => string | undefined) | undefined;
}

export interface Slot {
  readonly handle: SessionStateHandle;
  outcome(): SlotOutcome;
}

/** The per-call state holder the middleware puts in `ctx.locals`. */
export function createSlot(config: SlotConfig): Slot {
  let plaintext = config.incoming?.plaintext;
  let kind: SlotOutcome['kind'] = 'unchanged';
  const handle: SessionStateHandle = {
    enabled: config.enabled,
    expiresAt: config.incoming === undefined ? undefined : new Date(config.incoming.expiresAt),
    maxTokenBytes: config.maxTokenBytes,
    get() {
      return plaintext === undefined ? undefined : decodeState(plaintext)?.value;
    },
    set(value) {
      const json = encodeState(value);
      const problem = config.check?.(JSON.parse(json) as JsonValue);
      if (problem !== undefined)
        throw invalidValueError(`session state does not match the server's schema: ${problem}`);
      const size = sealedLength(config.sealingKeyId, Buffer.byteLength(json, 'utf8'));
      if (size > config.maxTokenBytes) throw tooLargeError(size, config.maxTokenBytes);
      plaintext = json;
      kind = 'set';
    },
    clear() {
      plaintext = undefined;
      kind = 'cleared';
    },
  };
  return {
    handle,
    outcome() {
      if (kind === 'set' && plaintext !== undefined) return { kind, plaintext };
      if (kind === 'cleared') return { kind };
      return { kind: 'unchanged', plaintext };
    },
  };
}

/** Puts the call's slot where {@link sessionState} finds it. */
export function setSlot(ctx: Pick<RequestContext, 'locals'>, slot: Slot): void {
  SLOT.set(ctx, slot);
}

/**
 * The session state of the current tool call, typed as the handler expects
 * it (declare the shape once and pass a TypeBox `schema` to
 * `sessionStateServer` to have it checked at runtime too). Throws a
 * `ConfigurationError` when the server did not compose `sessionStateServer`.
 *
 * ```ts
 * const cart = sessionState<{ items: string[] }>(ctx);
 * cart.set({ items: [...(cart.get()?.items ?? []), sku] });
 * ```
 */
export function sessionState<T extends JsonValue = JsonValue>(
  ctx: Pick<RequestContext, 'locals'>,
): SessionStateHandle<T> {
  const slot = SLOT.get(ctx);
  if (slot === undefined) {
    throw new ConfigurationError(
      'SESSION_STATE_NOT_COMPOSED',
      `sessionState(ctx): ${SESSION_STATE_PACKAGE} is not composed on this server; add sessionStateServer({ keys }) to the server extensions`,
    );
  }
  return slot.handle as unknown as SessionStateHandle<T>;
}
