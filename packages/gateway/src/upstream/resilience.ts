/**
 * `UpstreamResilience`: one upstream's circuit breaker and the retries of
 * each call to it, with cockatiel. A try that meets a transient fault is
 * retried with exponential backoff and jitter, a bounded number of times,
 * only where `mayRetry` allows (a call that may have reached the upstream
 * only when it is safe to repeat), and never once the call's signal aborted
 * or when the wait would leave no time before its deadline. Every try goes
 * through the breaker: after enough failures in a row it opens, and calls
 * fail at once, without reaching the upstream, until it lets one through to
 * try it again.
 */
import type { ExtensionError } from '@ext/core';
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  DelegateBackoff,
  ExponentialBackoff,
  circuitBreaker,
  handleWhen,
  retry,
  wrap,
  type CircuitBreakerPolicy,
  type IBackoff,
} from 'cockatiel';
import {
  DEFAULT_BREAKER_FAILURES,
  DEFAULT_BREAKER_HALF_OPEN_AFTER_MS,
  DEFAULT_RETRY_ATTEMPTS,
  DEFAULT_RETRY_INITIAL_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
} from '../config/resilience-schema.js';
import type { Upstream } from '../config/schema.js';
import { circuitOpen, stageOf } from './faults.js';
import { mayRetry, type CallSafety } from './retry-decision.js';

/** An upstream's breaker: `closed` lets calls through, `open` refuses them, `half_open` lets one through to try. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Hears what the resilience of an upstream does (metrics, readiness). Every method is optional. */
export interface UpstreamObserver {
  /** The upstream's breaker changed state. */
  breakerState?(upstream: string, state: BreakerState): void;
  /** A call to the upstream is tried again after a fault (once per retry). */
  retried?(upstream: string): void;
}

/** An upstream's `retry` and `breaker` settings, defaults applied. */
export interface ResilienceSettings {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly breakerFailures: number;
  readonly halfOpenAfterMs: number;
}

export function resilienceSettings(upstream: Upstream): ResilienceSettings {
  return {
    attempts: upstream.retry?.attempts ?? DEFAULT_RETRY_ATTEMPTS,
    initialDelayMs: upstream.retry?.initialDelayMs ?? DEFAULT_RETRY_INITIAL_DELAY_MS,
    maxDelayMs: upstream.retry?.maxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS,
    breakerFailures: upstream.breaker?.failures ?? DEFAULT_BREAKER_FAILURES,
    halfOpenAfterMs: upstream.breaker?.halfOpenAfterMs ?? DEFAULT_BREAKER_HALF_OPEN_AFTER_MS,
  };
}

/** One call, as its retries see it. */
export interface ResilientCall {
  readonly safety: CallSafety;
  /** Tries in all, the first included; default the upstream's. */
  readonly attempts?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The bound of the whole call, all its tries together, in milliseconds. */
  readonly timeoutMs: number;
}

/** A retry is not started with less time than this left before the call's deadline. */
const MIN_TRY_MS = 100;

const STATES: Readonly<Record<CircuitState, BreakerState>> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'open',
};

/** A transient fault of a request to the upstream (what retries and the breaker count); other errors pass through. */
function isTransientFault(error: unknown): error is ExtensionError {
  return stageOf(error) !== undefined && (error as ExtensionError).category === 'transient';
}

/** What a try ended with, as the policies see it: an answer (a result, or an error the upstream answered with). */
type Answer<T> = { readonly result: T } | { readonly error: unknown };

export class UpstreamResilience {
  readonly #upstream: string;
  readonly #settings: ResilienceSettings;
  readonly #observer: UpstreamObserver;
  readonly #breaker: CircuitBreakerPolicy;
  #openedAt = 0;
  #lastFault: ExtensionError | undefined;

  /** `observer` hears of every breaker change and retry (fan it out to several yourself). */
  constructor(upstream: string, settings: ResilienceSettings, observer: UpstreamObserver) {
    this.#upstream = upstream;
    this.#settings = settings;
    this.#observer = observer;
    this.#breaker = circuitBreaker(handleWhen(isTransientFault), {
      halfOpenAfter: settings.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(settings.breakerFailures),
    });
    this.#breaker.onBreak(() => {
      this.#openedAt = Date.now();
    });
    this.#breaker.onStateChange((state) => {
      this.#observer.breakerState?.(upstream, STATES[state]);
    });
  }

  /** The breaker's state now. */
  get state(): BreakerState {
    return STATES[this.#breaker.state];
  }

  /** Seconds until the open breaker lets a call through (at least 1). */
  #retryAfterSeconds(): number {
    const left = this.#openedAt + this.#settings.halfOpenAfterMs - Date.now();
    return Math.max(1, Math.ceil(left / 1000));
  }

  /**
   * The backoff of one call: the delay before each retry is chosen when its
   * fault is judged, so a retry whose wait would leave the call too little
   * time is not made at all.
   */
  #delays(left: () => number) {
    const exponential = new ExponentialBackoff({
      initialDelay: this.#settings.initialDelayMs,
      maxDelay: this.#settings.maxDelayMs,
    });
    let current: IBackoff<unknown> | undefined;
    return {
      /** The delay before the next retry, or `undefined` when none fits before the deadline. */
      next(): number | undefined {
        current = current === undefined ? exponential.next() : current.next(undefined);
        return left() - current.duration >= MIN_TRY_MS ? current.duration : undefined;
      },
      chosen: () => current?.duration ?? 0,
    };
  }

  /**
   * Runs `attempt` (given the milliseconds left before the call's deadline)
   * under the breaker, trying again as the call allows. Throws the last
   * fault, the call's signal's reason once it aborted, or a transient
   * `UPSTREAM_UNAVAILABLE` at once while the breaker is open.
   */
  async run<T>(call: ResilientCall, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
    const deadline = performance.now() + call.timeoutMs;
    const left = () => deadline - performance.now();
    const aborted = () => call.signal?.aborted === true;
    const delays = this.#delays(left);
    const again = (error: unknown): boolean => {
      const stage = stageOf(error);
      if (stage === undefined || !isTransientFault(error) || aborted()) return false;
      return mayRetry(call.safety, stage) && delays.next() !== undefined;
    };
    const retries = retry(handleWhen(again), {
      maxAttempts: Math.max(0, (call.attempts ?? this.#settings.attempts) - 1),
      backoff: new DelegateBackoff(() => delays.chosen()),
    });
    retries.onRetry(() => this.#observer.retried?.(this.#upstream));
    const tryOnce = async (): Promise<Answer<T>> => {
      if (aborted()) throw call.signal?.reason;
      try {
        return { result: await attempt(Math.max(1, left())) };
      } catch (error) {
        if (isTransientFault(error)) this.#lastFault = error;
        // An upstream that answers, even with an error, is up: that is no failure for the breaker.
        if (isTransientFault(error) || aborted()) throw error;
        return { error };
      }
    };
    let answer: Answer<T>;
    try {
      answer = await wrap(retries, this.#breaker).execute(tryOnce);
    } catch (error) {
      if (error instanceof BrokenCircuitError)
        throw circuitOpen(this.#upstream, this.#retryAfterSeconds(), this.#lastFault);
      throw error;
    }
    if ('error' in answer) throw answer.error;
    return answer.result;
  }
}
