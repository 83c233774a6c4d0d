/**
 * Client side: `EventSubscription`, one subscription as the client keeps it:
 * in order and once each however events arrive (`subscription-inbox.ts`),
 * gaps filled, fetched by stream or poll when not pushed
 * (`subscription-loops.ts`), resumed after drops.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type ExtendedClient } from '@ext/core';
import { methodFor, pollEvents, unsubscribeEvents } from './client-calls.js';
import { isAnswer, malformed } from './responses.js';
import { routeTable, type Listener } from './routes.js';
import { EVENTS_ID, type DeliveryMode, type SubscriptionResponse, type TerminationNotice } from './schema.js';
import {
  shouldResubscribe,
  subscriptionRequest,
  type SubscribeOptions,
  type SubscriptionState,
} from './subscribe-options.js';
import { SubscriptionInbox } from './subscription-inbox.js';
import { pollLoop, streamLoop, type LoopHost } from './subscription-loops.js';

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
  readonly #inbox: SubscriptionInbox;
  readonly #loops: LoopHost;
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
    this.#inbox = new SubscriptionInbox(this.id, options, () => this.#client.composed.logger);
    this.#loops = this.#loopHost();
    this.#resetEnded();
  }

  #resetEnded(): void {
    this.#ended = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** What the stream and poll loops reach of this subscription. */
  #loopHost(): LoopHost {
    return {
      id: this.id,
      options: this.#options,
      inbox: this.#inbox,
      client: () => this.#client,
      response: () => this.#response,
      current: (generation) => this.#current(generation),
      signal: () => this.#stop.signal,
      deliverBy: (mode) => {
        this.#delivery = mode;
      },
      terminated: (notice, generation) => this.#terminated(notice, generation),
      finish: (state, reason) => {
        this.#finish(state, reason);
      },
      attach: () => this.#attach(),
      disconnect: (error) => {
        this.#disconnect(error);
      },
    };
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
    return this.#inbox.last;
  }

  /** The server's latest answer to subscribe (status, `expires_at`, `supported_events`, reason when denied). */
  get response(): SubscriptionResponse | undefined {
    return this.#response;
  }

  /** Settles when this subscription stops for good on this connection (denied, terminated, unsubscribed, closed). */
  ended(): Promise<{ state: SubscriptionState; reason?: string | undefined }> {
    return this.#ended;
  }

  #finish(state: SubscriptionState, reason?: string): void {
    this.#state = state;
    this.#generation += 1;
    this.#stop.abort();
    this.#route?.table.delete(this.id);
    this.#route = undefined;
    this.#settle({ state, reason });
  }

  /** Too many failures in a row: stops receiving until `resume()`. */
  #disconnect(error: unknown): void {
    this.#state = 'disconnected';
    this.#generation += 1;
    this.#stop.abort();
    this.#options.onDisconnected?.(error);
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

  #onNotification(params: Record<string, unknown>): void {
    if (!isAnswer('event', params)) {
      this.#client.composed.logger.warn('events: ignored a malformed event notification', { subscription_id: this.id });
      return;
    }
    const generation = this.#generation;
    void this.#inbox.enqueue(async () => {
      if (this.#state !== 'active' || generation !== this.#generation) return;
      const action = this.#inbox.classify(params);
      if (action === 'duplicate') return;
      if (action === 'gap') await this.#inbox.fillGap((cursor) => pollEvents(this.#client, this.id, { cursor }));
      if (!this.#inbox.has(params.cursor) && this.#current(generation)) await this.#inbox.deliver(params);
    });
  }

  #onTerminationNotice(params: Record<string, unknown>): void {
    if (!isAnswer('terminated', params)) {
      this.#client.composed.logger.warn('events: ignored a malformed termination notice', { subscription_id: this.id });
      return;
    }
    const generation = this.#generation;
    void this.#inbox.enqueue(() => this.#terminated(params, generation));
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
    const request = subscriptionRequest(this.id, this.#options, this.#inbox.from);
    const response = await this.#client.request(method, { ...request });
    if (!isAnswer('subscribe', response)) throw malformed('subscription response');
    this.#response = response;
    if (response.status === 'denied') {
      this.#finish('denied', response.reason);
      return;
    }
    this.#inbox.placeAt(response.cursor);
    this.#state = 'active';
    this.#inbox.pollCursor = undefined;
    this.#delivery = response.delivery ?? (this.#client.era === 'modern' ? 'stream' : 'notification');
    if (this.#delivery === 'stream') void streamLoop(this.#loops, generation);
    if (this.#delivery === 'poll') void pollLoop(this.#loops, generation);
  }

  #current(generation: number): boolean {
    return this.#state === 'active' && generation === this.#generation;
  }

  /** Starts receiving; used by {@link subscribeEvents}. */
  async start(): Promise<void> {
    try {
      await this.#inbox.enqueue(() => this.#attach());
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
      await this.#inbox.enqueue(() => this.#attach());
    } catch (error) {
      this.#state = 'disconnected';
      throw error;
    }
  }

  /** Stops receiving on this client but keeps the server's subscription (resume it later). */
  async close(): Promise<void> {
    if (this.#state === 'active' || this.#state === 'disconnected') this.#finish('closed');
    await this.#inbox.drained();
  }

  /** Ends the subscription on the server and stops receiving. */
  async unsubscribe(): Promise<void> {
    this.#finish('unsubscribed', 'unsubscribed');
    await unsubscribeEvents(this.#client, this.id);
  }
}
