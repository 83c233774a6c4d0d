/**
 * The gateway's store with each failed operation told to the recorder, by
 * the reason a store gives for an outage (`StoreUnavailableError.reason`:
 * `unreachable`, `timeout`, `busy`, ...) or `other`. The store logs an
 * outage once; the count says how many operations it failed.
 */
import { StoreUnavailableError, type Store } from '@ext/core';
import type { GatewayRecorder } from './recorder.js';

/** The label a failure of the store is counted under. */
export function storeErrorReason(error: unknown): string {
  return StoreUnavailableError.isInstance(error) ? error.reason : 'other';
}

/** `store`, each failed operation counted; what it answers and throws is unchanged. */
export function observedStore(store: Store, recorder: Pick<GatewayRecorder, 'storeError'>): Store {
  const observe = <T>(operation: Promise<T>): Promise<T> =>
    operation.catch((error: unknown) => {
      recorder.storeError(storeErrorReason(error));
      throw error;
    });
  const health = store.health?.bind(store);
  return {
    get: (key) => observe(store.get(key)),
    set: (key, value, options) => observe(store.set(key, value, options)),
    setIfAbsent: (key, value, options) => observe(store.setIfAbsent(key, value, options)),
    compareAndSet: (key, expected, next, options) => observe(store.compareAndSet(key, expected, next, options)),
    delete: (key) => observe(store.delete(key)),
    increment: (key, by, options) => observe(store.increment(key, by, options)),
    append: (stream, value, options) => observe(store.append(stream, value, options)),
    read: (stream, options) => observe(store.read(stream, options)),
    publish: (channel, message) => observe(store.publish(channel, message)),
    subscribe: (channel, listener) => observe(store.subscribe(channel, listener)),
    ...(health === undefined ? {} : { health }),
    close: () => store.close(),
  };
}
