/**
 * The behaviour every `Store` must have, as a vitest suite any store
 * implementation runs (`runStoreContract`); each topic's tests live in a
 * `store-contract-*.ts` file of their own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import {
  compareAndSetContract,
  compareAndSetRaceContract,
  incrementContract,
  setIfAbsentContract,
} from './store-contract-atomic.js';
import { publishSubscribeContract, streamLimitsContract, streamsContract } from './store-contract-streams.js';
import type { ContractRun } from './store-contract-support.js';
import { deleteAndCopiesContract, getSetDeleteContract, ttlContract } from './store-contract-values.js';

/** What a contract factory returns: a fresh, empty store and how to dispose of what it left behind. */
export interface StoreContractHandle {
  readonly store: Store;
  /** Runs after the store is closed (drop files, delete keys). */
  readonly cleanup?: (() => Promise<void>) | undefined;
}

export interface StoreContractOptions {
  /** How long a condition that takes real time (expiry, delivery) may take. Default 3000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Runs of each property-based test. Default 40. */
  readonly propertyRuns?: number | undefined;
}

/** A `Store` that hands every call to the store of the test running now. */
function forwardingTo(current: () => Store): Store {
  return {
    get: (...args) => current().get(...args),
    set: (...args) => current().set(...args),
    setIfAbsent: (...args) => current().setIfAbsent(...args),
    compareAndSet: (...args) => current().compareAndSet(...args),
    delete: (...args) => current().delete(...args),
    increment: (...args) => current().increment(...args),
    append: (...args) => current().append(...args),
    read: (...args) => current().read(...args),
    publish: (...args) => current().publish(...args),
    subscribe: (...args) => current().subscribe(...args),
    close: () => current().close(),
  };
}

/**
 * The behaviour every `Store` must have (docs/ARCHITECTURE.md, 'State and the Store'), as a vitest suite.
 * Call it at the top level of a test file; `factory` is called before each
 * test and must return an empty store (or one whose keys cannot collide with
 * earlier tests, e.g. under a fresh prefix).
 *
 * ```ts
 * runStoreContract('MemoryStore', async () => ({ store: new MemoryStore() }));
 * ```
 */
export function runStoreContract(
  name: string,
  factory: () => Promise<StoreContractHandle>,
  options: StoreContractOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 3000;
  const propertyRuns = options.propertyRuns ?? 40;

  describe(`Store contract: ${name}`, () => {
    let handle: StoreContractHandle | undefined;
    let store: Store;

    beforeEach(async () => {
      handle = await factory();
      store = handle.store;
    });

    afterEach(async () => {
      const current = handle;
      handle = undefined;
      if (!current) return;
      await current.store.close();
      await current.cleanup?.();
    });

    const run: ContractRun = {
      store: forwardingTo(() => store),
      timeoutMs,
      propertyRuns,
      // Tests that wait on real time get room for the wait plus the store's own latency.
      slow: { timeout: timeoutMs * 2 + 5000 },
    };
    getSetDeleteContract(run);
    deleteAndCopiesContract(run);
    ttlContract(run);
    setIfAbsentContract(run);
    compareAndSetContract(run);
    compareAndSetRaceContract(run);
    incrementContract(run);
    streamsContract(run);
    streamLimitsContract(run);
    publishSubscribeContract(run);

    describe('close', () => {
      it('is idempotent, and operations after it reject', async () => {
        await store.set('k', 1);
        await store.close();
        await store.close();
        await expect(store.get('k')).rejects.toThrow();
        await expect(store.set('k', 2)).rejects.toThrow();
      });
    });
  });
}
