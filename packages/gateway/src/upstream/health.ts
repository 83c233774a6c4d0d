/**
 * `UpstreamHealth`: an upstream's outage logged once when it starts and once
 * when it ends, however many calls fail in between. Pure bookkeeping: the
 * connection decides what a failure is (and its breaker when calls stop
 * reaching the upstream for a while).
 */
import type { ExtensionError, Logger } from '@ext/core';

interface Outage {
  readonly code: string;
  readonly since: number;
}

export class UpstreamHealth {
  readonly #upstream: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #onChange: ((up: boolean) => void) | undefined;
  #outage: Outage | undefined;
  /** Whether it answers, as `onChange` was last told; `undefined` before its first answer or fault. */
  #up: boolean | undefined;

  /** `onChange` hears when the upstream starts answering and when an outage starts (the metrics' up gauge). */
  constructor(upstream: string, logger: Logger, now: () => number = Date.now, onChange?: (up: boolean) => void) {
    this.#upstream = upstream;
    this.#logger = logger;
    this.#now = now;
    this.#onChange = onChange;
  }

  #tell(up: boolean): void {
    if (this.#up === up) return;
    this.#up = up;
    this.#onChange?.(up);
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
    this.#tell(false);
    return error;
  }

  /** Records an answer; logs the end of an outage, if there was one. */
  recovered(): void {
    this.#tell(true);
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    this.#logger.warn(`Upstream "${this.#upstream}" is answering again`, {
      upstream: this.#upstream,
      code: outage.code,
      unavailable_ms: this.#now() - outage.since,
    });
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error)
    return cause.message === '' ? cause.constructor.name : `${cause.constructor.name}: ${cause.message}`;
  return String(cause);
}
