/** What every topic of the store contract shares: the run it tests against, and its waiting and comparing helpers. */
import { canonicalJson, type JsonValue } from '../kit/canonical.js';
import type { Store } from '../store/store.js';

/** What each topic of the contract runs against. */
export interface ContractRun {
  /** The store of the test running now (every call goes to the fresh store the factory made for it). */
  readonly store: Store;
  /** How long a condition that takes real time (expiry, delivery) may take. */
  readonly timeoutMs: number;
  /** Runs of each property-based test. */
  readonly propertyRuns: number;
  /** The options of a test that waits on real time: room for the wait plus the store's own latency. */
  readonly slow: { readonly timeout: number };
}

/** Polls `check` until it holds; no fixed sleeps, so slow machines only take longer. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
