/**
 * The legacy-era (2025) session table both SDK lines' HTTP handlers keep:
 * bounded in size and forgetting sessions nobody used for a while
 * (CORE-32). Each session holds a whole server instance (tens to hundreds
 * of KiB), and a client that never sends DELETE would otherwise keep its
 * session, and that memory, for the life of the process.
 */
import { ConfigurationError } from './errors.js';
import { jsonRpcError } from './http-body.js';

/** Bounds on the legacy-era sessions of an HTTP handler. */
export interface SessionLimits {
  /** Most sessions open at once; an `initialize` beyond it is answered `503` with `Retry-After`. Default {@link DEFAULT_MAX_SESSIONS}. */
  readonly max?: number | undefined;
  /** A session with no request in flight for this long is closed and forgotten. Default {@link DEFAULT_SESSION_IDLE_TIMEOUT_MS} (15 minutes). */
  readonly idleTimeoutMs?: number | undefined;
}

/**
 * 1,000 sessions: a session holds a server instance, which for the demo
 * tracker (a dozen tools) measured about 90 KiB on SDK v2 and 200 KiB on
 * v1, so a full table stays near 100 to 200 MiB, within a default Node heap.
 */
export const DEFAULT_MAX_SESSIONS = 1_000;
/** 15 minutes without a request. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 15 * 60 * 1000;
/** setTimeout's delay is a signed 32-bit number of milliseconds. */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** The longest `Retry-After` a full table suggests, in seconds. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** Checks `sessions` at creation: a bad value fails with a `ConfigurationError` naming the option. */
export function resolveSessionLimits(
  limits: SessionLimits | undefined,
  where: string,
): Required<{ [K in keyof SessionLimits]: number }> {
  // Options may come from untyped configuration.
  if (limits !== undefined && (typeof limits !== 'object' || (limits as unknown) === null)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions must be an object ({ max?, idleTimeoutMs? }), got ${typeof limits}`,
    );
  }
  const max = limits?.max ?? DEFAULT_MAX_SESSIONS;
  if (!Number.isSafeInteger(max) || max <= 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions.max must be a positive integer, got ${String(limits?.max)}`,
    );
  }
  const idleTimeoutMs = limits?.idleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  if (!Number.isSafeInteger(idleTimeoutMs) || idleTimeoutMs <= 0 || idleTimeoutMs > MAX_TIMEOUT_MS) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions.idleTimeoutMs must be a positive integer of at most ${String(MAX_TIMEOUT_MS)} milliseconds, got ${String(limits?.idleTimeoutMs)}`,
    );
  }
  return { max, idleTimeoutMs };
}

interface Slot<S> {
  readonly session: S;
  /** Requests of the session whose answer is still being written. */
  inFlight: number;
  timer: NodeJS.Timeout | undefined;
}

/** A place held for a session being opened: `open` records it once the SDK names it, `release` gives the place back. */
export interface SessionReservation<S> {
  open(id: string, session: S): void;
  release(): void;
}

/**
 * Open sessions by id, at most `max` (counting those being opened), each
 * closed through `expire` once idle for `idleTimeoutMs`. Idle timers are
 * unref'd: they never keep the process alive.
 */
export class SessionTable<S> {
  readonly #slots = new Map<string, Slot<S>>();
  readonly #max: number;
  readonly #idleTimeoutMs: number;
  readonly #expire: (session: S) => void;
  #opening = 0;

  constructor(limits: { readonly max: number; readonly idleTimeoutMs: number }, expire: (session: S) => void) {
    this.#max = limits.max;
    this.#idleTimeoutMs = limits.idleTimeoutMs;
    this.#expire = expire;
  }

  get size(): number {
    return this.#slots.size;
  }

  get(id: string): S | undefined {
    return this.#slots.get(id)?.session;
  }

  /** Holds a place for a new session, or `undefined` when the table is full. */
  reserve(): SessionReservation<S> | undefined {
    if (this.#slots.size + this.#opening >= this.#max) return undefined;
    this.#opening += 1;
    let held = true;
    const release = (): void => {
      if (held) this.#opening -= 1;
      held = false;
    };
    return {
      open: (id, session) => {
        release();
        // The opening request is in flight: the idle clock starts when its answer ends.
        this.#slots.set(id, { session, inFlight: 1, timer: undefined });
      },
      release,
    };
  }

  /** A request of session `id` started: it is not idle until {@link leave}. */
  enter(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    slot.inFlight += 1;
    clearTimeout(slot.timer);
    slot.timer = undefined;
  }

  /** A request of session `id` was answered; with none left in flight, the idle clock starts. */
  leave(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    slot.inFlight = Math.max(0, slot.inFlight - 1);
    if (slot.inFlight > 0) return;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      if (this.#slots.get(id) !== slot) return;
      this.#slots.delete(id);
      this.#expire(slot.session);
    }, this.#idleTimeoutMs);
    slot.timer.unref();
  }

  /** Forgets a session (closed by its client, or by the handler). */
  delete(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    clearTimeout(slot.timer);
    this.#slots.delete(id);
  }

  /** Forgets every session and returns them, for the handler to close. */
  clear(): S[] {
    const sessions = [...this.#slots.values()].map((slot) => {
      clearTimeout(slot.timer);
      return slot.session;
    });
    this.#slots.clear();
    return sessions;
  }

  /** The answer to an `initialize` when the table is full: 503, JSON-RPC -32000, and when to try again. */
  fullResponse(): Response {
    const retryAfter = Math.max(1, Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(this.#idleTimeoutMs / 1000)));
    return jsonRpcError(
      503,
      -32000,
      `Service Unavailable: this server holds its maximum of ${String(this.#max)} sessions; retry later`,
      {
        'retry-after': String(retryAfter),
      },
    );
  }
}
