/**
 * The legacy-era (2025) session table both SDK lines' HTTP handlers keep:
 * bounded in size and forgetting sessions nobody used for a while
 * (CORE-32). Each session holds a whole server instance (tens to hundreds
 * of KiB), and a client that never sends DELETE would otherwise keep its
 * session, and that memory, for the life of the process.
 */
import { ConfigurationError } from '../contract/errors.js';
import { jsonRpcError } from './http-body.js';

/** Bounds on the legacy-era sessions of an HTTP handler. */
export interface SessionLimits {
  /** Most sessions open at once; an `initialize` beyond it is answered `503` with `Retry-After`. Default {@link DEFAULT_MAX_SESSIONS}. */
  readonly max?: number | undefined;
  /**
   * Most sessions one identified caller holds at once (the shared anonymous
   * caller counts toward `max` only); beyond it the caller's own oldest idle
   * session is closed to make room, or, with none idle, the `initialize` is
   * answered `429`. Default {@link DEFAULT_MAX_SESSIONS_PER_PRINCIPAL}, at most `max`.
   */
  readonly maxPerPrincipal?: number | undefined;
  /** A session with no request in flight for this long is closed and forgotten. Default {@link DEFAULT_SESSION_IDLE_TIMEOUT_MS} (15 minutes). */
  readonly idleTimeoutMs?: number | undefined;
}

/**
 * 1,000 sessions: a session holds a server instance, which for the demo
 * tracker (a dozen tools) measured about 54 KiB on SDK v1 once method
 * schemas and tool schemas were shared between instances (193 KiB before),
 * so a full table stays well within a default Node heap.
 */
export const DEFAULT_MAX_SESSIONS = 1_000;
/** 100 sessions a caller: far more than a client opens, and a tenth of the table, so one caller cannot fill it. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 100;
/** 15 minutes without a request. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 15 * 60 * 1000;
/** setTimeout's delay is a signed 32-bit number of milliseconds. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The limits checked and completed. */
export type ResolvedSessionLimits = Required<{ [K in keyof SessionLimits]: number }>;

function positiveInteger(value: number | undefined, fallback: number, name: string, where: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved <= 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions.${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return resolved;
}

/** Checks `sessions` at creation: a bad value fails with a `ConfigurationError` naming the option. */
export function resolveSessionLimits(limits: SessionLimits | undefined, where: string): ResolvedSessionLimits {
  // Options may come from untyped configuration.
  if (limits !== undefined && (typeof limits !== 'object' || (limits as unknown) === null)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions must be an object ({ max?, maxPerPrincipal?, idleTimeoutMs? }), got ${typeof limits}`,
    );
  }
  const max = positiveInteger(limits?.max, DEFAULT_MAX_SESSIONS, 'max', where);
  const maxPerPrincipal = positiveInteger(
    limits?.maxPerPrincipal,
    Math.min(max, DEFAULT_MAX_SESSIONS_PER_PRINCIPAL),
    'maxPerPrincipal',
    where,
  );
  if (maxPerPrincipal > max) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions.maxPerPrincipal (${String(maxPerPrincipal)}) must not exceed sessions.max (${String(max)})`,
    );
  }
  const idleTimeoutMs = limits?.idleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  if (!Number.isSafeInteger(idleTimeoutMs) || idleTimeoutMs <= 0 || idleTimeoutMs > MAX_TIMEOUT_MS) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: sessions.idleTimeoutMs must be a positive integer of at most ${String(MAX_TIMEOUT_MS)} milliseconds, got ${String(limits?.idleTimeoutMs)}`,
    );
  }
  return { max, maxPerPrincipal, idleTimeoutMs };
}

interface Slot<S> {
  readonly session: S;
  /** The identified caller that opened it; `undefined` for the shared anonymous caller (never evicted for another). */
  readonly owner: string | undefined;
  /** Requests of the session whose answer is still being written. */
  inFlight: number;
  timer: NodeJS.Timeout | undefined;
  /** When its last request ended (`performance.now()`), while idle. */
  idleSince: number;
}

/** A place held for a session being opened: `open` records it once the SDK names it, `release` gives the place back. */
export interface SessionReservation<S> {
  open(id: string, session: S): void;
  release(): void;
}

/** Why a place could not be held: the whole table, or the caller's own share of it. */
export type SessionRefusal = { readonly refused: 'full' | 'caller'; readonly retryAfterSeconds: number };

/**
 * Open sessions by id, at most `max` (counting those being opened) and at
 * most `maxPerPrincipal` for one identified caller, each closed through
 * `expire` once idle for `idleTimeoutMs`. A caller at either bound gets room
 * by losing its own oldest idle session, never someone else's. Idle timers
 * are unref'd: they never keep the process alive.
 */
export class SessionTable<S> {
  readonly #slots = new Map<string, Slot<S>>();
  /** Sessions open or being opened, by identified caller. */
  readonly #held = new Map<string, number>();
  readonly #limits: ResolvedSessionLimits;
  readonly #expire: (session: S) => void;
  #opening = 0;

  constructor(
    limits: { readonly max: number; readonly idleTimeoutMs: number; readonly maxPerPrincipal?: number },
    expire: (session: S) => void,
  ) {
    this.#limits = { ...limits, maxPerPrincipal: limits.maxPerPrincipal ?? limits.max };
    this.#expire = expire;
  }

  get size(): number {
    return this.#slots.size;
  }

  get(id: string): S | undefined {
    return this.#slots.get(id)?.session;
  }

  /**
   * Holds a place for a new session of `owner` (an identified caller, or
   * `undefined` for the shared anonymous one), closing the caller's own
   * oldest idle session when it is at a bound; else says why there is none.
   */
  reserve(owner?: string): SessionReservation<S> | SessionRefusal {
    const { max, maxPerPrincipal } = this.#limits;
    // All of the caller's sessions are busy: the first of its requests to end makes one idle, and so evictable.
    if (owner !== undefined && this.#heldBy(owner) >= maxPerPrincipal && !this.#evictOldestIdle(owner)) {
      return { refused: 'caller', retryAfterSeconds: 1 };
    }
    if (this.#slots.size + this.#opening >= max && (owner === undefined || !this.#evictOldestIdle(owner))) {
      return { refused: 'full', retryAfterSeconds: this.#secondsUntilIdleExpiry() };
    }
    this.#opening += 1;
    this.#count(owner, 1);
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.#opening -= 1;
      this.#count(owner, -1);
    };
    return {
      open: (id, session) => {
        release();
        this.#count(owner, 1);
        // The opening request is in flight: the idle clock starts when its answer ends.
        this.#slots.set(id, { session, owner, inFlight: 1, timer: undefined, idleSince: 0 });
      },
      release,
    };
  }

  #heldBy(owner: string): number {
    return this.#held.get(owner) ?? 0;
  }

  #count(owner: string | undefined, delta: number): void {
    if (owner === undefined) return;
    const next = this.#heldBy(owner) + delta;
    if (next > 0) this.#held.set(owner, next);
    else this.#held.delete(owner);
  }

  /** Closes `owner`'s session idle the longest; `false` when it has none idle. */
  #evictOldestIdle(owner: string): boolean {
    let oldest: [string, Slot<S>] | undefined;
    for (const entry of this.#slots) {
      const slot = entry[1];
      if (slot.owner !== owner || slot.inFlight > 0) continue;
      if (oldest === undefined || slot.idleSince < oldest[1].idleSince) oldest = entry;
    }
    if (oldest === undefined) return false;
    this.delete(oldest[0]);
    this.#expire(oldest[1].session);
    return true;
  }

  /**
   * Whole seconds until the first idle session expires and frees a place;
   * with none idle, a whole idle timeout, the soonest any session could.
   */
  #secondsUntilIdleExpiry(): number {
    const now = performance.now();
    let soonest = this.#limits.idleTimeoutMs;
    for (const slot of this.#slots.values()) {
      if (slot.inFlight > 0) continue;
      soonest = Math.min(soonest, slot.idleSince + this.#limits.idleTimeoutMs - now);
    }
    return Math.max(1, Math.ceil(soonest / 1000));
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
    slot.idleSince = performance.now();
    slot.timer = setTimeout(() => {
      if (this.#slots.get(id) !== slot) return;
      this.delete(id);
      this.#expire(slot.session);
    }, this.#limits.idleTimeoutMs);
    slot.timer.unref();
  }

  /** Forgets a session (closed by its client, or by the handler). */
  delete(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    clearTimeout(slot.timer);
    this.#slots.delete(id);
    this.#count(slot.owner, -1);
  }

  /** Forgets every session and returns them, for the handler to close. */
  clear(): S[] {
    const sessions = [...this.#slots.values()].map((slot) => {
      clearTimeout(slot.timer);
      return slot.session;
    });
    this.#slots.clear();
    this.#held.clear();
    return sessions;
  }

  /**
   * The answer to an `initialize` refused a place, JSON-RPC -32000: `429`
   * when the caller's own sessions are all busy (`Retry-After: 1`, as one
   * of its requests ending gives it room), `503` when the table is full
   * (`Retry-After`: the time until an idle session frees a place).
   */
  refusalResponse(refusal: SessionRefusal): Response {
    const { max, maxPerPrincipal } = this.#limits;
    const retry = { 'retry-after': String(refusal.retryAfterSeconds) };
    if (refusal.refused === 'caller') {
      return jsonRpcError(
        429,
        -32000,
        `Too Many Requests: you hold this server's maximum of ${String(maxPerPrincipal)} sessions per caller, all in use; close one (DELETE) or retry later`,
        retry,
      );
    }
    return jsonRpcError(
      503,
      -32000,
      `Service Unavailable: this server holds its maximum of ${String(max)} sessions; retry later`,
      retry,
    );
  }
}

/** Whether `value` is what {@link SessionTable.reserve} gives when it holds no place. */
export function isRefusal<S>(value: SessionReservation<S> | SessionRefusal): value is SessionRefusal {
  return 'refused' in value;
}
