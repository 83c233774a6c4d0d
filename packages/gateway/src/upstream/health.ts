/**
 * `UpstreamHealth`: an upstream's outage logged once when it starts and once
 * when it ends, however many calls fail in between; and, after a failed
 * connect, how long calls fail at once instead of starting the upstream
 * again. Pure bookkeeping: the connection decides what a failure is.
 */
import type { ExtensionError, Logger } from '@ext/core';
import { RETRY_AFTER_SECONDS } from './faults.js';

interface Outage {
  readonly code: string;
  readonly since: number;
}

export class UpstreamHealth {
  readonly #upstream: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  #outage: Outage | undefined;
  #waitUntil = 0;

  constructor(upstream: string, logger: Logger, now: () => number = Date.now) {
    this.#upstream = upstream;
    this.#logger = logger;
    this.#now = now;
  }

  /** Records a fault; logs only the first of an outage. Returns `error`, to throw. */
  failed(error: ExtensionError): ExtensionError {
    if (this.#outage === undefined) {
      this.#outage = { code: error.code, since: this.#now() };
      this.#logger.warn(error.message, {
        upstream: this.#upstream,
        code: error.code,
        ...(error.cause === undefined ? {} : { error: describe(error.cause) }),
      });
    }
    return error;
  }

  /** Records an answer; logs the end of an outage, if there was one. */
  recovered(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    this.#logger.warn(`Upstream "${this.#upstream}" is answering again`, {
      upstream: this.#upstream,
      code: outage.code,
      unavailable_ms: this.#now() - outage.since,
    });
  }

  /** A connect failed: calls fail at once for the next {@link RETRY_AFTER_SECONDS}. */
  connectFailed(): void {
    this.#waitUntil = this.#now() + RETRY_AFTER_SECONDS * 1000;
  }

  /** Seconds left before connecting again is worth trying; 0 when it is. */
  waitSeconds(): number {
    const left = this.#waitUntil - this.#now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error)
    return cause.message === '' ? cause.constructor.name : `${cause.constructor.name}: ${cause.message}`;
  return String(cause);
}
