/**
 * Client side: how a subscription fetches what is not pushed to it, by a
 * stream request reopened from the last delivered event each time it ends,
 * or by polling. After a failure a loop waits and tries again, subscribes
 * again when the server no longer knows the subscription, or gives up as
 * disconnected. Each loop belongs to one attachment of the subscription
 * (its generation) and stops when that ends.
 */
import { WireError, type ExtendedClient } from '@ext/core';
import { isNotFound, methodFor, pollEvents } from './client-calls.js';
import { isAnswer, malformed } from './responses.js';
import {
  EVENTS_ID,
  type DeliveryMode,
  type EventsServerSettings,
  type PollResult,
  type SubscriptionResponse,
  type TerminationNotice,
} from './schema.js';
import type { SubscribeOptions, SubscriptionState } from './subscribe-options.js';
import type { SubscriptionInbox } from './subscription-inbox.js';

/** Extra time a stream request may take beyond the server's `max_stream_seconds` before the client gives up on it. */
const STREAM_TIMEOUT_MARGIN_MS = 60_000;

/** What a loop needs of its subscription. */
export interface LoopHost {
  readonly id: string;
  readonly options: SubscribeOptions;
  readonly inbox: SubscriptionInbox;
  /** The connection the subscription is on now. */
  client(): ExtendedClient;
  /** The server's latest answer to subscribe. */
  response(): SubscriptionResponse | undefined;
  /** Whether the attachment `generation` still receives. */
  current(generation: number): boolean;
  /** Aborted when the subscription stops receiving. */
  signal(): AbortSignal;
  /** Events now arrive by `mode`. */
  deliverBy(mode: DeliveryMode): void;
  /** Acts on a termination (subscribes again or ends); runs inside the inbox's queue. */
  terminated(notice: TerminationNotice, generation: number): Promise<void>;
  finish(state: SubscriptionState, reason: string): void;
  /** Subscribes again from the last delivered event; runs inside the inbox's queue. */
  attach(): Promise<void>;
  /** Gives up after too many failures in a row: `resume()` continues. */
  disconnect(error: unknown): void;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What to do after a failed stream or poll; `true` to retry. */
async function recover(host: LoopHost, error: unknown, generation: number, failures: number): Promise<boolean> {
  if (!host.current(generation)) return false;
  if (isNotFound(error)) {
    await host.inbox.enqueue(async () => {
      if (host.current(generation)) await host.attach();
    });
    return false;
  }
  if (failures > (host.options.maxRetries ?? 3)) {
    host.disconnect(error);
    return false;
  }
  await delay(host.options.retryDelayMs ?? 1000, host.signal());
  return host.current(generation);
}

export async function streamLoop(host: LoopHost, generation: number): Promise<void> {
  const method = methodFor(host.client(), 'stream');
  if (method === undefined) return;
  const settings = host.client().negotiated<EventsServerSettings>(EVENTS_ID)?.settings;
  const timeoutMs = (settings?.max_stream_seconds ?? 300) * 1000 + STREAM_TIMEOUT_MARGIN_MS;
  let failures = 0;
  while (host.current(generation)) {
    // Everything already received is handed over first, so the reopened stream starts after it.
    await host.inbox.drained();
    if (!host.current(generation)) return;
    let result: Record<string, unknown>;
    try {
      result = await host
        .client()
        .request(method, { subscription_id: host.id, cursor: host.inbox.last }, { signal: host.signal(), timeoutMs });
    } catch (error) {
      if (WireError.isInstance(error) && error.code === -32601) {
        // A server without streams: poll instead.
        host.deliverBy('poll');
        void pollLoop(host, generation);
        return;
      }
      failures += 1;
      if (!(await recover(host, error, generation, failures))) return;
      continue;
    }
    if (!isAnswer('stream', result)) {
      failures += 1;
      if (!(await recover(host, malformed('stream result'), generation, failures))) return;
      continue;
    }
    failures = 0;
    if (result.status === 'terminated') {
      const notice: TerminationNotice = {
        subscription_id: host.id,
        reason: result.reason ?? 'terminated',
        cursor: result.cursor,
      };
      await host.inbox.enqueue(() => host.terminated(notice, generation));
      return;
    }
    if (result.reason === 'replaced') {
      // Another holder of this subscription took it over; reopening would take it back and forth.
      if (host.current(generation)) host.finish('closed', 'replaced');
      return;
    }
  }
}

export async function pollLoop(host: LoopHost, generation: number): Promise<void> {
  const interval = host.options.pollIntervalMs ?? (host.response()?.poll_interval_seconds ?? 5) * 1000;
  let failures = 0;
  while (host.current(generation)) {
    let result: PollResult | undefined;
    try {
      result = await pollEvents(host.client(), host.id, { cursor: host.inbox.pollCursor ?? host.inbox.last });
    } catch (error) {
      failures += 1;
      if (!(await recover(host, error, generation, failures))) return;
      continue;
    }
    failures = 0;
    if (result === undefined) return;
    const page = result;
    await host.inbox.enqueue(async () => {
      if (!host.current(generation)) return;
      await host.inbox.deliverNew(page.events);
      host.inbox.pollCursor = page.cursor;
      if (page.status === 'terminated') {
        await host.terminated(
          { subscription_id: host.id, reason: page.reason ?? 'terminated', cursor: page.cursor },
          generation,
        );
      }
    });
    if (!page.has_more) await delay(interval, host.signal());
  }
}
