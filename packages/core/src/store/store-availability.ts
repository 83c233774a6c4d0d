/** `StoreAvailability`: a store's outage logged once when it starts and once when it ends. */
import type { StoreUnavailableError, StoreUnavailableReason } from '../contract/errors.js';
import type { Logger } from '../telemetry/logger.js';

/** The outage a store is in: what started it and when. */
export interface StoreOutage {
  readonly reason: StoreUnavailableReason;
  /** Milliseconds since the epoch, from the tracker's clock. */
  readonly since: number;
}

/**
 * Whether a store is in an outage, so that the outage is logged once when it
 * starts (`store unavailable`) and once when it ends (`store available
 * again`), however many calls fail in between: a log line per failed call
 * would bury the one that says when it started. Pure bookkeeping; the store
 * decides what counts as a failure and as a recovery.
 */
export class StoreAvailability {
  readonly #store: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  #outage: StoreOutage | undefined;

  /** `store` names the store in the log lines (e.g. `RedisStore`). */
  constructor(store: string, logger: Logger, now: () => number = Date.now) {
    this.#store = store;
    this.#logger = logger;
    this.#now = now;
  }

  /** The current outage, or `undefined` while the store serves. */
  get outage(): StoreOutage | undefined {
    return this.#outage;
  }

  /** Records a failure; logs only the first of an outage. Returns `error`, to throw. */
  failed(error: StoreUnavailableError): StoreUnavailableError {
    if (this.#outage === undefined) {
      this.#outage = { reason: error.reason, since: this.#now() };
      this.#logger.warn(`${this.#store}: store unavailable`, { reason: error.reason, error: describe(error.cause) });
    }
    return error;
  }

  /** Records a success; logs the end of an outage, if there was one. */
  recovered(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    this.#logger.warn(`${this.#store}: store available again`, {
      reason: outage.reason,
      unavailable_ms: this.#now() - outage.since,
    });
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error)
    return cause.message === '' ? cause.constructor.name : `${cause.constructor.name}: ${cause.message}`;
  return String(cause);
}
