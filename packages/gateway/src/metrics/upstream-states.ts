/**
 * What the gateway knows of each upstream now: whether it answers (its
 * connection reports each outage's start and end) and where its circuit
 * breaker stands. Read by `/readyz` and the upstream gauges. Pure.
 */

/** A circuit breaker's state, as Prometheus labels and `/readyz` show it. */
export type BreakerState = 'closed' | 'open' | 'half_open';

export const BREAKER_STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];

export interface UpstreamState {
  /** `true` once it answered and until an outage starts; `false` before its first answer. */
  readonly up: boolean;
  readonly breaker: BreakerState;
}

const UNKNOWN: UpstreamState = { up: false, breaker: 'closed' };

/** Whether calls can reach it now: it answers, and no open breaker fails them at once. */
export function isAvailable(state: UpstreamState): boolean {
  return state.up && state.breaker !== 'open';
}

export class UpstreamStates {
  readonly #states = new Map<string, UpstreamState>();

  /** Its state; an upstream never heard of is down, its breaker closed. */
  of(upstream: string): UpstreamState {
    return this.#states.get(upstream) ?? UNKNOWN;
  }

  setUp(upstream: string, up: boolean): void {
    this.#states.set(upstream, { ...this.of(upstream), up });
  }

  setBreaker(upstream: string, breaker: BreakerState): void {
    this.#states.set(upstream, { ...this.of(upstream), breaker });
  }
}
