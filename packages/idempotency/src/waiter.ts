/** Waiting for an in-flight execution to settle: woken by the store's pub/sub message, or after a poll interval. */
import type { Store, Unsubscribe } from '@ext/core';

/** Wakes a waiting duplicate when the record it waits on settles, or after a poll interval. */
export interface Waiter {
  wait(ms: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Subscribes to `channel`; a message that arrives between two waits is not lost (the next wait returns at once). */
export async function openWaiter(store: Store, channel: string): Promise<Waiter> {
  let wake: (() => void) | undefined;
  let pending = false;
  const unsubscribe: Unsubscribe = await store.subscribe(channel, () => {
    pending = true;
    wake?.();
  });
  return {
    wait(ms, signal) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          wake = undefined;
          pending = false;
          resolve();
        };
        const onAbort = (): void => {
          clearTimeout(timer);
          wake = undefined;
          reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled'));
        };
        const timer = setTimeout(done, ms);
        wake = done;
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    close: unsubscribe,
  };
}
