/**
 * Whether the gateway is ready for traffic (`/readyz`): its config is
 * loaded (it would not be serving otherwise), its store answers, and at
 * least one upstream can be reached. One upstream down among several does
 * not make the gateway unready: every instance shares that upstream, so
 * taking them all out of rotation would also cut off the tools of the
 * upstreams that work, while the gateway answers calls to the one that is
 * down with a transient error and a retry hint. With every upstream down it
 * can serve nothing. The answer names each upstream's state and nothing
 * more: no address, no error text.
 */
import type { Store } from '@ext/core';
import { isAvailable, type BreakerState, type UpstreamStates } from './upstream-states.js';

/** How long the store's probe may take before the store counts as unreachable. */
export const STORE_PROBE_TIMEOUT_MS = 2000;

/** A key nothing writes: reading it is the cheapest probe a store without `health()` allows. */
const PROBE_KEY = 'gateway:readyz';

export interface ReadinessFacts {
  readonly storeOk: boolean;
  /** The upstreams the gateway has now, in config order. */
  readonly upstreams: readonly string[];
  readonly states: UpstreamStates;
}

export interface ReadinessBody {
  readonly status: 'ready' | 'not_ready';
  readonly checks: {
    readonly config: 'loaded';
    readonly store: 'ok' | 'unavailable';
    readonly upstreams: Readonly<Record<string, { readonly state: 'up' | 'down'; readonly breaker: BreakerState }>>;
  };
}

/** The readiness the facts make. Pure. */
export function readiness(facts: ReadinessFacts): ReadinessBody {
  const upstreams = Object.fromEntries(
    facts.upstreams.map((name) => {
      const state = facts.states.of(name);
      return [name, { state: isAvailable(state) ? ('up' as const) : ('down' as const), breaker: state.breaker }];
    }),
  );
  const anyUp = Object.values(upstreams).some((upstream) => upstream.state === 'up');
  return {
    status: facts.storeOk && anyUp ? 'ready' : 'not_ready',
    checks: { config: 'loaded', store: facts.storeOk ? 'ok' : 'unavailable', upstreams },
  };
}

/** Whether `store` answers within `timeoutMs`: its own `health()` when it has one, else a read. */
export async function storeAnswers(store: Store, timeoutMs = STORE_PROBE_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, timeoutMs);
    timer.unref();
  });
  const probe = (async () => {
    if (store.health !== undefined) return (await store.health()).ok;
    await store.get(PROBE_KEY);
    return true;
    // A store that fails the probe is the answer: unreachable (its own log says why, once per outage).
  })().catch(() => false);
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
