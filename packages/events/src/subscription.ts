/**
 * Client side: `EventSubscription`, one subscription as the client keeps it:
 * in order and once each however events arrive, gaps filled, resumed after drops.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, WireError, type ExtendedClient } from '@ext/core';
import { isNotFound, methodFor, pollEvents, unsubscribeEvents } from './client-calls.js';
import { isAnswer, malformed } from './responses.js';
import { routeTable, type Listener } from './routes.js';
import {
  EVENTS_ID,
  type DeliveryMode,
  type EventNotification,
  type EventsServerSettings,
  type PollResult,
  type SubscriptionResponse,
  type TerminationNotice,
} from './schema.js';
import { EventSequencer } from './sequencer.js';
import {
  shouldResubscribe,
  subscriptionRequest,
  type SubscribeOptions,
  type SubscriptionState,
} from './subscribe-options.js';

/** Extra time a stream request may take beyond the server's `max_stream_seconds` before the client gives up on it. */
const STREAM_TIMEOUT_MARGIN_MS = 60_000;

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

/**
 * A subscription as the client sees it: receives events once each and in
 * order, however they arrive (pushed notifications, a stream request, or
 * polling), fills gaps by polling from the last delivered event,
 * resubscribes after a termination it can recover from, and resumes from
 * its cursor on a new connection.
 */
export class EventSubscription {
  readonly id: string;
  #client: ExtendedClient;
  #options: SubscribeOptions;
  #state: SubscriptionState = 'active';
  #delivery: DeliveryMode = 'notification';
  #response: SubscriptionResponse | undefined;
  #sequencer: EventSequencer;
  /** Whether the sequencer holds a real position (else the first subscribe starts at the server's head). */
  #positioned: boolean;
  /** Poll position (may be past the last delivered event, over filtered-out ones). */
  #pollCursor: string | undefined;
  #queue: Promise<void> = Promise.resolve();
  /** Bumped on every (re)attachment and on close: loops of an older generation stop. */
  #generation = 0;
  #stop = new AbortController();
  #route: { table: Map<string, Listener> } | undefined;
  #ended!: Promise<{ state: SubscriptionState; reason?: string | undefined }>;
  #settle!: (outcome: { state: SubscriptionState; reason?: string | undefined }) => void;

  /** Use {@link subscribeEvents}. */
  constructor(client: ExtendedClient, options: SubscribeOptions) {
    this.#client = client;
    this.#options = options;
    this.id = options.subscriptionId ?? randomUUID();
    this.#sequencer = new EventSequencer(options.cursor ?? '');
    this.#positioned = options.cursor !== undefined;
    this.#resetEnded();
  }

  #resetEnded(): void {
    this.#ended = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  get state(): SubscriptionState {
    return this.#state;
  }

  /** How events currently arrive. */
  get delivery(): DeliveryMode {
    return this.#delivery;
  }

  /** The cursor of the last delivered event: resume from it to miss nothing. */
  get cursor(): string {
    return this.#sequencer.last;
  }

  /** The server's latest answer to subscribe (status, `expires_at`, `supported_events`, reason when denied). */
  get response(): SubscriptionResponse | undefined {
    return this.#response;
  }

  /** Settles when this subscription stops for good on this connection (denied, terminated, unsubscribed, closed). */
  ended(): Promise<{ state: SubscriptionState; reason?: string | undefined }> {
    return this.#ended;
  }

  /** Runs tasks one at a time, so events are handed over strictly in order. */
  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task);
    this.#queue = run.catch((error: unknown) => {
      this.#client.composed.logger.warn('events: a subscription task failed', {
        subscription_id: this.id,
        error: String(error),
      });
    });
    return run;
  }

  #finish(state: SubscriptionState, reason?: string): void {
    this.#state = state;
    this.#generation += 1;
    this.#stop.abort();
    this.#route?.table.delete(this.id);
    this.#route = undefined;
    this.#settle({ state, reason });
  }

  #listen(): void {
    const negotiated = this.#client.negotiated(EVENTS_ID);
    if (negotiated === undefined) return;
    const table = routeTable(this.#client, negotiated.id);
    table.set(this.id, {
      event: (params) => {
        this.#onNotification(params);
      },
      terminated: (params) => {
        this.#onTerminationNotice(params);
      },
    });
    this.#route = { table };
  }

  async #deliver(event: EventNotification): Promise<void> {
    this.#sequencer.delivered(event.cursor);
    try {
      await this.#options.onEvent(event);
    } catch (error) {
      // The subscriber's own failure must not stop the feed; it is reported, and the event counts as delivered.
      this.#client.composed.logger.warn('events: onEvent threw', {
        subscription_id: this.id,
        cursor: event.cursor,
        error: String(error),
      });
    }
  }

  #onNotification(params: Record<string, unknown>): void {
    if (!isAnswer('event', params)) {
      this.#client.composed.logger.warn('events: ignored a malformed event notification', { subscription_id: this.id });
      return;
    }
    const generation = this.#generation;
    void this.#enqueue(async () => {
      if (this.#state !== 'active' || generation !== this.#generation) return;
      const action = this.#sequencer.classify(params);
      if (action === 'duplicate') return;
      if (action === 'gap') await this.#fillGap();
      if (!this.#sequencer.has(params.cursor) && this.#current(generation)) await this.#deliver(params);
    });
  }

  /** Fetches, by polling from the last delivered event, what was lost in between. */
  async #fillGap(): Promise<void> {
    for (;;) {
      const result = await pollEvents(this.#client, this.id, { cursor: this.#sequencer.last });
      if (result === undefined) return;
      for (const event of result.events) if (!this.#sequencer.has(event.cursor)) await this.#deliver(event);
      if (result.status === 'terminated' || !result.has_more) return;
    }
  }

  #onTerminationNotice(params: Record<string, unknown>): void {
    if (!isAnswer('terminated', params)) {
      this.#client.composed.logger.warn('events: ignored a malformed termination notice', { subscription_id: this.id });
      return;
    }
    const generation = this.#generation;
    void this.#enqueue(() => this.#terminated(params, generation));
  }

  async #terminated(notice: TerminationNotice, generation: number): Promise<void> {
    if (this.#state !== 'active' || generation !== this.#generation) return;
    this.#generation += 1;
    this.#options.onTerminated?.(notice);
    if (shouldResubscribe(this.#options.resubscribe, notice.reason)) {
      await this.#attach();
      return;
    }
    this.#finish(notice.reason === 'unsubscribed' ? 'unsubscribed' : 'terminated', notice.reason);
  }

  /** Subscribes (again) from the last delivered event and starts receiving. Runs inside the queue. */
  async #attach(): Promise<void> {
    const method = methodFor(this.#client, 'subscribe');
    if (method === undefined)
      throw new ConfigurationError(
        'NOT_NEGOTIATED',
        'subscribeEvents: the server does not negotiate io.github.mcp-ext/events',
      );
    this.#generation += 1;
    const generation = this.#generation;
    this.#stop.abort();
    this.#stop = new AbortController();
    this.#listen();
    const cursor = this.#positioned ? this.#sequencer.last : undefined;
    const request = subscriptionRequest(this.id, this.#options, cursor);
    const response = await this.#client.request(method, { ...request });
    if (!isAnswer('subscribe', response)) throw malformed('subscription response');
    this.#response = response;
    if (response.status === 'denied') {
      this.#finish('denied', response.reason);
      return;
    }
    if (!this.#positioned) {
      this.#sequencer = new EventSequencer(response.cursor ?? '');
      this.#positioned = true;
    }
    this.#state = 'active';
    this.#pollCursor = undefined;
    this.#delivery = response.delivery ?? (this.#client.era === 'modern' ? 'stream' : 'notification');
    if (this.#delivery === 'stream') void this.#streamLoop(generation);
    if (this.#delivery === 'poll') void this.#pollLoop(generation);
  }

  #current(generation: number): boolean {
    return this.#state === 'active' && generation === this.#generation;
  }

  /** What to do after a failed stream or poll; `true` to retry. */
  async #recover(error: unknown, generation: number, failures: number): Promise<boolean> {
    if (!this.#current(generation)) return false;
    if (isNotFound(error)) {
      await this.#enqueue(async () => {
        if (this.#current(generation)) await this.#attach();
      });
      return false;
    }
    if (failures > (this.#options.maxRetries ?? 3)) {
      this.#state = 'disconnected';
      this.#generation += 1;
      this.#stop.abort();
      this.#options.onDisconnected?.(error);
      return false;
    }
    await delay(this.#options.retryDelayMs ?? 1000, this.#stop.signal);
    return this.#current(generation);
  }

  async #streamLoop(generation: number): Promise<void> {
    const method = methodFor(this.#client, 'stream');
    if (method === undefined) return;
    const settings = this.#client.negotiated<EventsServerSettings>(EVENTS_ID)?.settings;
    const timeoutMs = (settings?.max_stream_seconds ?? 300) * 1000 + STREAM_TIMEOUT_MARGIN_MS;
    let failures = 0;
    while (this.#current(generation)) {
      // Everything already received is handed over first, so the reopened stream starts after it.
      await this.#queue;
      if (!this.#current(generation)) return;
      let result: Record<string, unknown>;
      try {
        result = await this.#client.request(
          method,
          { subscription_id: this.id, cursor: this.#sequencer.last },
          { signal: this.#stop.signal, timeoutMs },
        );
      } catch (error) {
        if (WireError.isInstance(error) && error.code === -32601) {
          // A server without streams: poll instead.
          this.#delivery = 'poll';
          void this.#pollLoop(generation);
          return;
        }
        failures += 1;
        if (!(await this.#recover(error, generation, failures))) return;
        continue;
      }
      if (!isAnswer('stream', result)) {
        failures += 1;
        if (!(await this.#recover(malformed('stream result'), generation, failures))) return;
        continue;
      }
      failures = 0;
      if (result.status === 'terminated') {
        const notice: TerminationNotice = {
          subscription_id: this.id,
          reason: result.reason ?? 'terminated',
          cursor: result.cursor,
        };
        await this.#enqueue(() => this.#terminated(notice, generation));
        return;
      }
      if (result.reason === 'replaced') {
        // Another holder of this subscription took it over; reopening would take it back and forth.
        if (this.#current(generation)) this.#finish('closed', 'replaced');
        return;
      }
    }
  }

  async #pollLoop(generation: number): Promise<void> {
    const interval = this.#options.pollIntervalMs ?? (this.#response?.poll_interval_seconds ?? 5) * 1000;
    let failures = 0;
    while (this.#current(generation)) {
      let result: PollResult | undefined;
      try {
        result = await pollEvents(this.#client, this.id, { cursor: this.#pollCursor ?? this.#sequencer.last });
      } catch (error) {
        failures += 1;
        if (!(await this.#recover(error, generation, failures))) return;
        continue;
      }
      failures = 0;
      if (result === undefined) return;
      const page = result;
      await this.#enqueue(async () => {
        if (!this.#current(generation)) return;
        for (const event of page.events) if (!this.#sequencer.has(event.cursor)) await this.#deliver(event);
        this.#pollCursor = page.cursor;
        if (page.status === 'terminated') {
          await this.#terminated(
            { subscription_id: this.id, reason: page.reason ?? 'terminated', cursor: page.cursor },
            generation,
          );
        }
      });
      if (!page.has_more) await delay(interval, this.#stop.signal);
    }
  }

  /** Starts receiving; used by {@link subscribeEvents}. */
  async start(): Promise<void> {
    try {
      await this.#enqueue(() => this.#attach());
    } catch (error) {
      this.#finish('closed');
      throw error;
    }
  }

  /**
   * Continues after a dropped connection, on `client` (a new connection)
   * or the current one: subscribes again with the same id from the last
   * delivered event, so nothing is missed or repeated.
   */
  async resume(client?: ExtendedClient): Promise<void> {
    if (client !== undefined && client !== this.#client) {
      this.#route?.table.delete(this.id);
      this.#route = undefined;
      this.#client = client;
    }
    if (this.#state !== 'active') {
      this.#state = 'active';
      this.#resetEnded();
    }
    this.#generation += 1;
    try {
      await this.#enqueue(() => this.#attach());
    } catch (error) {
      this.#state = 'disconnected';
      throw error;
    }
  }

  /** Stops receiving on this client but keeps the server's subscription (resume it later). */
  async close(): Promise<void> {
    if (this.#state === 'active' || this.#state === 'disconnected') this.#finish('closed');
    await this.#queue;
  }

  /** Ends the subscription on the server and stops receiving. */
  async unsubscribe(): Promise<void> {
    this.#finish('unsubscribed', 'unsubscribed');
    await unsubscribeEvents(this.#client, this.id);
  }
}
