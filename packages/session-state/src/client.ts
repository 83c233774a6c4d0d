/**
 * The client half of `@ext/session-state`: the token jar, and the
 * descriptor that replays each server's latest token and keeps the new ones.
 */
import { ConfigurationError, type ClientExtension, type OutgoingCall } from '@ext/core';
import { isRecord, positiveIntegerOption, type Resolved } from '@ext/core/kit';
import { isSessionStateRejected, readResultMeta } from './logic.js';
import {
  DEFAULT_MAX_TOKEN_BYTES,
  SESSION_STATE_ID,
  SESSION_STATE_PACKAGE,
  SESSION_STATE_WIRE_VERSION,
  SessionStateServerSettingsSchema,
  type SessionStateClientSettings,
  type SessionStateRequestMeta,
  type SessionStateResultMeta,
} from './schema.js';

/** A token as the client keeps it. */
export interface StoredSessionToken {
  readonly token: string;
  /** `expires_at` of the token, ms since the epoch. */
  readonly expiresAt: number;
}

/**
 * Where the client keeps the latest token of each server, keyed by the
 * server's advertised `server_name` (`""` when it advertises none).
 * Synchronous, because results are read synchronously; back it with
 * anything (a file, the OS keychain) to keep sessions across restarts.
 */
export interface SessionTokenJar {
  get(server: string): StoredSessionToken | undefined;
  set(server: string, entry: StoredSessionToken): void;
  delete(server: string): void;
}

/** An in-memory jar; pass your own to inspect or clear tokens from the host. */
export function createTokenJar(): SessionTokenJar & { readonly size: number; clear(): void } {
  const tokens = new Map<string, StoredSessionToken>();
  return {
    get: (server) => tokens.get(server),
    set: (server, entry) => {
      tokens.set(server, { token: entry.token, expiresAt: entry.expiresAt });
    },
    delete: (server) => {
      tokens.delete(server);
    },
    get size() {
      return tokens.size;
    },
    clear: () => {
      tokens.clear();
    },
  };
}

export interface SessionStateClientOptions {
  /** Where tokens are kept. Default: a new in-memory jar for this client half. */
  readonly jar?: SessionTokenJar | undefined;
  /** Largest token kept, in bytes; advertised so the server refuses to seal more. Default 65536. */
  readonly maxTokenBytes?: number | undefined;
  /** Wall clock in milliseconds, to skip expired tokens (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

const OPTION_NAMES = new Set(['jar', 'maxTokenBytes', 'now']);
const WHERE = 'sessionStateClient';

/** The jar key of the server a negotiation outcome belongs to. */
export function serverKey(settings: Readonly<Record<string, unknown>>): string {
  return typeof settings.server_name === 'string' ? settings.server_name : '';
}

function sentToken(call: OutgoingCall, id: string): string | undefined {
  const entry = call.meta[id];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const token = (entry as Record<string, unknown>).session_state;
  return typeof token === 'string' ? token : undefined;
}

/** The options with every default applied (`jar` has none: a new one per client half). */
type ResolvedClientOptions = Resolved<SessionStateClientOptions, 'jar'>;

function validate(options: unknown): ResolvedClientOptions {
  if (options === undefined) return { jar: undefined, maxTokenBytes: DEFAULT_MAX_TOKEN_BYTES, now: Date.now };
  if (!isRecord(options)) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: expects an options object`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.has(key)) throw new ConfigurationError('INVALID_OPTION', `${WHERE}: unknown option "${key}"`);
  }
  const jar = options.jar as Record<string, unknown> | undefined;
  if (
    jar !== undefined &&
    (typeof jar !== 'object' || ['get', 'set', 'delete'].some((name) => typeof jar[name] !== 'function'))
  ) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: jar must have get, set and delete methods`);
  }
  const maxTokenBytes = positiveIntegerOption(
    WHERE,
    'maxTokenBytes',
    options.maxTokenBytes as number | undefined,
    DEFAULT_MAX_TOKEN_BYTES,
  );
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: now must be a function`);
  }
  return {
    jar: jar as SessionTokenJar | undefined,
    maxTokenBytes,
    now: (options.now as (() => number) | undefined) ?? Date.now,
  };
}

/**
 * The client half: keeps the latest token of each server and replays it in
 * `params._meta` on every tool call, so the host never handles tokens. It
 * drops a token when the server clears the state, when it expires, and when
 * the server refuses it (`SESSION_STATE_INVALID`, read from `@ext/errors`'
 * structured error). It does not retry the refused call: the call never ran,
 * and whether it still makes sense without the lost state is the host's
 * decision.
 */
export function sessionStateClient(options?: SessionStateClientOptions): ClientExtension {
  const resolved = validate(options);
  const jar = resolved.jar ?? createTokenJar();
  const { maxTokenBytes, now } = resolved;
  const settings: SessionStateClientSettings = { version: SESSION_STATE_WIRE_VERSION, max_token_bytes: maxTokenBytes };

  return {
    side: 'client',
    name: SESSION_STATE_PACKAGE,
    ids: [SESSION_STATE_ID],
    settings,
    peerSettings: SessionStateServerSettingsSchema,
    prepareCall(call, negotiated) {
      if (negotiated === undefined) return;
      // A token the caller put there on purpose wins over the stored one.
      if (call.meta[negotiated.id] !== undefined) return;
      const server = serverKey(negotiated.settings);
      const stored = jar.get(server);
      if (stored === undefined) return;
      if (stored.expiresAt <= now()) {
        jar.delete(server);
        return;
      }
      call.meta[negotiated.id] = { session_state: stored.token } satisfies SessionStateRequestMeta;
    },
    onResult(result, call, negotiated) {
      if (negotiated === undefined) return;
      const server = serverKey(negotiated.settings);
      const entry = readResultMeta(result, negotiated.id);
      if (entry?.session_state !== undefined && entry.expires_at !== undefined) {
        const expiresAt = Date.parse(entry.expires_at);
        // A token too large to keep, or already stale, leaves no valid token: the previous one is outdated too.
        if (entry.session_state.length > maxTokenBytes || expiresAt <= now()) jar.delete(server);
        else jar.set(server, { token: entry.session_state, expiresAt });
        return;
      }
      if (entry?.state_changed === true) {
        jar.delete(server);
        return;
      }
      if (isSessionStateRejected(result)) {
        const sent = sentToken(call, negotiated.id);
        // Only the token that was refused goes; a concurrent call may already have stored a newer one.
        if (sent !== undefined && jar.get(server)?.token === sent) jar.delete(server);
      }
    },
  };
}

/** `result._meta[ID]` of a tool result when well formed (a new token, or `state_changed` alone), else `undefined`. */
export function getSessionStateMeta(result: unknown): SessionStateResultMeta | undefined {
  return readResultMeta(result);
}

export { isSessionStateRejected } from './logic.js';
