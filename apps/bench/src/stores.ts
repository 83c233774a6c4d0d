/** Suite 3: store throughput, each operation the idempotency layer uses, one caller and many in flight. */
import type { Store } from '@ext/core';
import { measureConcurrent, measureSequential, type Measurement, type RunOptions } from './measure.js';

export type StoreOp = 'setIfAbsent' | 'get' | 'increment';

export const STORE_OPS: readonly StoreOp[] = ['setIfAbsent', 'get', 'increment'];

export interface StoreRow {
  readonly store: string;
  readonly op: StoreOp;
  readonly sequential: Measurement;
  readonly concurrent: Measurement;
}

export interface NamedStore {
  readonly name: string;
  readonly create: () => Store | Promise<Store>;
}

/** Keys `get` reads, written before timing so every read is a hit. */
const PRELOADED = 1000;
const TTL = { ttlMs: 600_000 };

/**
 * The three operations as an idempotency-shaped workload: `setIfAbsent` of
 * a new key (a claim), `get` of an existing key (a lookup), `increment` of
 * a shared counter (the record budget).
 */
function operations(store: Store, run: string): Readonly<Record<StoreOp, () => Promise<unknown>>> {
  let next = 0;
  let read = 0;
  return {
    setIfAbsent: async () => {
      const stored = await store.setIfAbsent(
        `bench:${run}:claim:${String(next++)}`,
        { state: 'in_flight', started_at: next },
        TTL,
      );
      if (!stored) throw new Error('setIfAbsent: a fresh key was already present');
    },
    get: async () => {
      const value = await store.get(`bench:${run}:record:${String(read++ % PRELOADED)}`);
      if (value === undefined) throw new Error('get: a preloaded key is missing');
    },
    increment: () => store.increment(`bench:${run}:counter`, 1, TTL),
  };
}

/** Suite 3: each store, each operation, one caller and then `inFlight` callers. */
export async function runStores(
  stores: readonly NamedStore[],
  inFlight: number,
  options: RunOptions,
  progress: (text: string) => void,
): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  for (const named of stores) {
    const store = await named.create();
    try {
      const run = crypto.randomUUID();
      for (let index = 0; index < PRELOADED; index++) {
        await store.set(
          `bench:${run}:record:${String(index)}`,
          { state: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } },
          TTL,
        );
      }
      const ops = operations(store, run);
      for (const op of STORE_OPS) {
        const sequential = await measureSequential(`${named.name} ${op}`, ops[op], options);
        const concurrent = await measureConcurrent(
          `${named.name} ${op} x${String(inFlight)}`,
          ops[op],
          inFlight,
          options,
        );
        progress(
          `store ${named.name.padEnd(8)} ${op.padEnd(12)} ${Math.round(sequential.opsPerSec).toString().padStart(9)} ops/s, 1 caller` +
            ` ${Math.round(concurrent.opsPerSec).toString().padStart(9)} ops/s, ${String(inFlight)} in flight`,
        );
        rows.push({ store: named.name, op, sequential, concurrent });
      }
    } finally {
      await store.close();
    }
  }
  return rows;
}
