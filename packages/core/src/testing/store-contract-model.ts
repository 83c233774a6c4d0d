/** The store contract's property-based test: random operation sequences, checked against a `Map` model. */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { JsonValue } from '../kit/canonical.js';
import type { Store } from '../store/store.js';
import { same } from './store-contract-support.js';

type ModelOp =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'delete'; readonly key: string }
  | { readonly kind: 'set'; readonly key: string; readonly value: JsonValue }
  | { readonly kind: 'setIfAbsent'; readonly key: string; readonly value: JsonValue }
  | {
      readonly kind: 'compareAndSet';
      readonly key: string;
      /** `current` uses the model's value as `expected`, so both outcomes are exercised. */
      readonly expected:
        { readonly current: true } | { readonly current: false; readonly value: JsonValue | undefined };
      readonly value: JsonValue;
    };

function modelOps(): fc.Arbitrary<ModelOp[]> {
  const key = fc.constantFrom('a', 'b', 'c');
  const value = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
  const op: fc.Arbitrary<ModelOp> = fc.oneof(
    fc.record({ kind: fc.constant('get' as const), key }),
    fc.record({ kind: fc.constant('delete' as const), key }),
    fc.record({ kind: fc.constant('set' as const), key, value }),
    fc.record({ kind: fc.constant('setIfAbsent' as const), key, value }),
    fc.record({
      kind: fc.constant('compareAndSet' as const),
      key,
      expected: fc.oneof(
        fc.constant({ current: true as const }),
        fc.record({ current: fc.constant(false as const), value: fc.option(value, { nil: undefined }) }),
      ),
      value,
    }),
  );
  return fc.array(op, { maxLength: 30 });
}

/** The test that `store` agrees with a `Map` over random sequences of the single-value operations. */
export function modelContract(store: Store, propertyRuns: number): void {
  it(
    'agrees with a Map model over random get / set / delete / setIfAbsent / compareAndSet sequences',
    { timeout: 60_000 },
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(modelOps(), async (ops) => {
          run += 1;
          // A fresh namespace per run keeps runs independent on the one store of this test.
          const prefix = `model:${run}:`;
          const model = new Map<string, JsonValue>();
          for (const op of ops) {
            const key = prefix + op.key;
            const current = model.get(op.key);
            switch (op.kind) {
              case 'get':
                expect(same(await store.get(key), current)).toBe(true);
                break;
              case 'delete':
                expect(await store.delete(key)).toBe(current !== undefined);
                model.delete(op.key);
                break;
              case 'set':
                await store.set(key, op.value);
                model.set(op.key, op.value);
                break;
              case 'setIfAbsent': {
                const stored = await store.setIfAbsent(key, op.value);
                expect(stored).toBe(current === undefined);
                if (stored) model.set(op.key, op.value);
                break;
              }
              case 'compareAndSet': {
                const expected = op.expected.current ? current : op.expected.value;
                const replaced = await store.compareAndSet(key, expected, op.value);
                expect(replaced).toBe(same(expected, current));
                if (replaced) model.set(op.key, op.value);
                break;
              }
            }
          }
          for (const key of ['a', 'b', 'c']) expect(same(await store.get(prefix + key), model.get(key))).toBe(true);
        }),
        { numRuns: propertyRuns },
      );
    },
  );
}
