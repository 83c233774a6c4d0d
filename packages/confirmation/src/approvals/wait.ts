/**
 * Waiting for a decision: a held call wakes when its request is published as
 * changed (on any instance), when a poll finds it changed should a message be
 * lost, at its expiry, or at the caller's timeout.
 */
import type { Store } from '@ext/core';
import type { ApprovalDesk } from './desk-types.js';
import { notFound } from './desk-errors.js';
import type { ApprovalRecord } from './record.js';

/** How often a waiting call reads its request again, should a published change be lost. */
const POLL_MS = 2000;

/** Where a request is read and its changes are published. */
export interface WaitScope {
  readonly desk: Pick<ApprovalDesk, 'get'>;
  readonly store: Store;
  readonly channel: string;
  readonly now: () => number;
}

/** Resolves when request `id` leaves `pending` (published, polled, or by its expiry), or at `timeoutMs`. */
export async function waitForDecision(
  { desk, store, channel, now }: WaitScope,
  id: string,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<ApprovalRecord> {
  const first = await desk.get(id);
  if (first === undefined) throw notFound(id);
  if (first.state !== 'pending') return first;
  const deadline = Math.min(first.expires_at, timeoutMs === undefined ? Infinity : now() + timeoutMs);
  return new Promise<ApprovalRecord>((resolve, reject) => {
    let last = first;
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    let unsubscribe: (() => Promise<void>) | undefined;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      for (const timer of timers) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void unsubscribe?.().catch(() => undefined);
      if (error === undefined) resolve(last);
      else reject(error instanceof Error ? error : new Error('aborted', { cause: error }));
    };
    const check = () => {
      desk.get(id).then(
        (record) => {
          if (record === undefined) {
            finish(notFound(id));
            return;
          }
          last = record;
          if (record.state !== 'pending' || now() >= deadline) finish();
        },
        (error: unknown) => {
          finish(error);
        },
      );
    };
    const onAbort = () => {
      finish(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const poll = setInterval(check, POLL_MS);
    poll.unref();
    timers.push(poll);
    const end = setTimeout(check, Math.max(0, deadline - now()) + 5);
    end.unref();
    timers.push(end);
    store
      .subscribe(channel, (message) => {
        if ((message as { id?: unknown } | null)?.id === id) check();
      })
      .then(
        (stop) => {
          if (done) void stop().catch(() => undefined);
          else unsubscribe = stop;
          // A decision made before the subscription took effect is read here.
          check();
        },
        (error: unknown) => {
          finish(error);
        },
      );
    if (signal?.aborted === true) onAbort();
  });
}
