import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  consoleLogger,
  ExtensionError,
  type JsonValue,
  type Logger,
  type RequestContext,
  type ServerExtension,
  type Store,
  type Unsubscribe,
} from '@ext/core';
import type { Static } from 'typebox';
import {
  buildCatalog,
  busChannel,
  busMessageToJson,
  checkSubscription,
  chooseDelivery,
  endedReason,
  grantedTtlSeconds,
  headKey,
  isActionHint,
  isSubscriptionId,
  logEntryToJson,
  logStream,
  parseBusMessage,
  parseLogEntry,
  parsePollRequest,
  parsePrincipalIndex,
  parseRecord,
  parseStreamRequest,
  parseSubscriptionRequest,
  parseUnsubscribeRequest,
  principalIndexKey,
  recordToJson,
  scanLog,
  selects,
  storeCursor,
  subscriptionKey,
  toNotification,
  type BusMessage,
  type Catalog,
  type EventDefinition,
  type LogEntry,
  type RequestFailure,
  type Selector,
  type SubscriptionRecord,
} from './logic.js';
import {
  EVENTS_ID,
  EVENTS_PACKAGE,
  EVENTS_WIRE_VERSION,
  EventsClientSettingsSchema,
  eventsNotification,
  type ActionHint,
  type DeliveryMode,
  type EventNotification,
  type EventsServerSettings,
  type ListEventsResult,
  type PollResult,
  type StreamResult,
  type SubscriptionResponse,
  type TerminationNotice,
  type UnsubscribeResult,
} from './schema.js';

export type { EventDefinition } from './logic.js';

/** The event types a server publishes, by name. */
export type EventDefinitions = Readonly<Record<string, EventDefinition>>;

/** The payload type of one declared event. */
export type PayloadOf<E extends EventDefinitions, K extends keyof E> = Static<E[K]['payload']> &
  Record<string, unknown>;

/** What `authorize` is asked about. */
export interface SubscriptionAttempt {
  readonly subscription_id: string;
  readonly events: readonly string[];
  readonly filter: Readonly<Record<string, unknown>>;
  readonly principal: string;
}

export interface EventsServerOptions<E extends EventDefinitions = EventDefinitions> {
  /** The event types, by name: `{ description, payload, filter?, match? }` with TypeBox object schemas. */
  readonly events: E;
  /**
   * Decides whether a caller may subscribe: `true` to allow, `false` or a
   * reason to deny (status `denied`). Default: everyone may subscribe.
   */
  readonly authorize?:
    ((attempt: SubscriptionAttempt, ctx: RequestContext) => boolean | string | Promise<boolean | string>) | undefined;
  /** TTL when the client asks none. Default 3600. */
  readonly defaultTtlSeconds?: number | undefined;
  /** Longer requested TTLs are lowered to this. Default 86400. */
  readonly maxTtlSeconds?: number | undefined;
  /** How often polling clients are told to poll. Default 5. */
  readonly pollIntervalSeconds?: number | undefined;
  /** Longest one `<id>/stream` request stays open; the client then reopens it. Default 300. */
  readonly maxStreamSeconds?: number | undefined;
  /** Most live subscriptions one principal may hold; beyond it, `denied`. Default 100. */
  readonly maxSubscriptionsPerPrincipal?: number | undefined;
  /** Events kept in the log for cursor replay (oldest trimmed first). Default 10000. */
  readonly retainEvents?: number | undefined;
  /** The log is dropped this long after the last publish. Default 86400. */
  readonly retainSeconds?: number | undefined;
  /** How long an ended subscription is remembered, so polls and streams can say why it ended. Default 3600. */
  readonly graceSeconds?: number | undefined;
  /** Re-read interval of the log in case a store's pub/sub wake-up is missed; records are re-checked every fifth. Default 1000. */
  readonly wakeIntervalMs?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"events"`. */
  readonly keyPrefix?: string | undefined;
  /** Where delivery failures are reported outside a request. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

export interface PublishOptions {
  /** A suggestion for how the client might respond (seed `action_hint`). */
  readonly actionHint?: ActionHint | undefined;
}

/** Selects events for {@link EventsServerExtension.watch}. */
export interface WatchOptions {
  readonly events: readonly string[];
  readonly filter?: Readonly<Record<string, unknown>> | undefined;
  /** Start after this cursor (`""` = the start of the log). Default: only events published from now on. */
  readonly after?: string | undefined;
}

/** An in-process subscription made with {@link EventsServerExtension.watch}. */
export interface EventWatch {
  /** The position it started from. */
  readonly cursor: string;
  stop(): Promise<void>;
}

/** The server half, with the author's handles to publish, watch and end subscriptions. */
export interface EventsServerExtension<E extends EventDefinitions = EventDefinitions> extends ServerExtension {
  /**
   * Appends an event to the log in `store` (the one given to the adapter),
   * where every subscriber on every server instance sharing that store sees
   * it. Returns its cursor. Throws `ConfigurationError` for an undeclared
   * type or a payload that does not match its schema (naming the field).
   */
  publish<K extends keyof E & string>(
    store: Store,
    event: K,
    payload: PayloadOf<E, K>,
    options?: PublishOptions,
  ): Promise<string>;
  /**
   * Subscribes in process, without MCP: `listener` gets every matching event
   * in order, as the notification a client would get. For server-side
   * consumers and benchmarks. Throws `ConfigurationError` for unknown events
   * or a bad filter.
   */
  watch(
    store: Store,
    options: WatchOptions,
    listener: (event: EventNotification) => void | Promise<void>,
  ): Promise<EventWatch>;
  /**
   * Ends a subscription early: its deliveries on every instance send a
   * termination notice with `reason` (default `revoked`) and stop. `false`
   * when there is no such subscription.
   */
  terminate(
    store: Store,
    target: { readonly principal: string; readonly subscriptionId: string },
    reason?: string,
    message?: string,
  ): Promise<boolean>;
  /** Ends every delivery on this instance with a `server_shutdown` notice (clients resubscribe elsewhere). */
  stop(): Promise<void>;
  /** Deliveries running on this instance (pushed to connections, open streams, watches). */
  activeDeliveries(): number;
}

interface ResolvedOptions {
  readonly defaultTtlSeconds: number;
  readonly maxTtlSeconds: number;
  readonly pollIntervalSeconds: number;
  readonly maxStreamSeconds: number;
  readonly maxSubscriptionsPerPrincipal: number;
  readonly retainEvents: number;
  readonly retainSeconds: number;
  readonly graceSeconds: number;
  readonly wakeIntervalMs: number;
  readonly keyPrefix: string;
  readonly logger: Logger;
  readonly now: () => number;
}

const WHERE = 'eventsServer';
/** Most log entries one poll reads before answering `has_more`. */
const MAX_SCAN = 10_000;
const READ_BATCH = 500;
const DEFAULT_POLL_LIMIT = 100;
const RECHECK_EVERY = 5;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${WHERE}: ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function resolveOptions(options: EventsServerOptions): ResolvedOptions {
  const maxTtlSeconds = positiveInteger('maxTtlSeconds', options.maxTtlSeconds, 86_400);
  const defaultTtlSeconds = positiveInteger(
    'defaultTtlSeconds',
    options.defaultTtlSeconds,
    Math.min(3600, maxTtlSeconds),
  );
  if (defaultTtlSeconds > maxTtlSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${WHERE}: defaultTtlSeconds (${defaultTtlSeconds}) must not exceed maxTtlSeconds (${maxTtlSeconds})`,
    );
  }
  const keyPrefix = options.keyPrefix ?? 'events';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: keyPrefix must be a non-empty string`);
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: authorize must be a function`);
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: now must be a function returning milliseconds`);
  }
  return {
    defaultTtlSeconds,
    maxTtlSeconds,
    pollIntervalSeconds: positiveInteger('pollIntervalSeconds', options.pollIntervalSeconds, 5),
    maxStreamSeconds: positiveInteger('maxStreamSeconds', options.maxStreamSeconds, 300),
    maxSubscriptionsPerPrincipal: positiveInteger(
      'maxSubscriptionsPerPrincipal',
      options.maxSubscriptionsPerPrincipal,
      100,
    ),
    retainEvents: positiveInteger('retainEvents', options.retainEvents, 10_000),
    retainSeconds: positiveInteger('retainSeconds', options.retainSeconds, 86_400),
    graceSeconds: positiveInteger('graceSeconds', options.graceSeconds, 3600),
    wakeIntervalMs: positiveInteger('wakeIntervalMs', options.wakeIntervalMs, 1000),
    keyPrefix,
    logger: options.logger ?? consoleLogger,
    now: options.now ?? Date.now,
  };
}

function invalid(failure: RequestFailure): ExtensionError {
  const suggestion =
    failure.code === 'UNKNOWN_EVENT'
      ? 'Call the list method to see the event types this server publishes.'
      : failure.code === 'INVALID_FILTER'
        ? 'Use only the filter fields each event type declares in its filter_schema (see the list method).'
        : 'Fix the named field and send the request again.';
  return new ExtensionError('invalid_input', failure.code, failure.message, {
    userActionable: false,
    suggestion,
    details: { field: failure.field, pointer: failure.pointer, ...(failure.details ?? {}) },
  });
}

function invalidCursor(): ExtensionError {
  return invalid({
    code: 'INVALID_INPUT',
    field: 'cursor',
    pointer: '/cursor',
    message: 'Invalid cursor: use a cursor this server returned (or "" for the start of the log)',
  });
}

function notFound(subscriptionId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'SUBSCRIPTION_NOT_FOUND',
    `No subscription "${subscriptionId}" for this caller`,
    {
      suggestion: 'Subscribe again; pass your last cursor to miss no event.',
      details: { subscription_id: subscriptionId },
    },
  );
}

/** Where events of one delivery go. */
interface Sink {
  event(notification: EventNotification): Promise<void>;
  terminated(notice: TerminationNotice): Promise<void>;
}

interface DeliveryEnd {
  readonly status: 'active' | 'terminated' | 'closed';
  readonly reason?: string | undefined;
  readonly cursor: string;
}

interface DeliverySpec {
  /** The subscription's store key; absent for in-process watches. */
  readonly key: string | undefined;
  readonly subscriptionId: string;
  readonly selector: Selector;
  readonly cursor: string;
  readonly sink: Sink;
  readonly token: string;
  readonly expiresMs?: number | undefined;
  readonly maxMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * One subscriber's feed on this instance: reads the log from its cursor
 * and sends what it selects, strictly in order (one task at a time).
 */
class Delivery {
  readonly key: string | undefined;
  readonly token: string;
  readonly done: Promise<DeliveryEnd>;
  #cursor: string;
  #sent: string;
  #queue: Promise<void> = Promise.resolve();
  #closing = false;
  #ended = false;
  #resolve!: (end: DeliveryEnd) => void;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #spec: DeliverySpec;
  readonly #hub: Hub;
  readonly #onAbort = (): void => {
    this.finish('closed', 'cancelled');
  };

  constructor(hub: Hub, spec: DeliverySpec) {
    this.#hub = hub;
    this.#spec = spec;
    this.key = spec.key;
    this.token = spec.token;
    this.#cursor = spec.cursor;
    this.#sent = spec.cursor;
    this.done = new Promise<DeliveryEnd>((resolve) => {
      this.#resolve = resolve;
    });
    const now = hub.now();
    if (spec.expiresMs !== undefined)
      this.#timer(spec.expiresMs - now, () => {
        this.terminate('expired');
      });
    if (spec.maxMs !== undefined)
      this.#timer(spec.maxMs, () => {
        this.finish('active', 'stream_limit');
      });
    if (spec.signal?.aborted === true) this.finish('closed', 'cancelled');
    else spec.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  get cursor(): string {
    return this.#cursor;
  }

  #timer(ms: number, action: () => void): void {
    const timer = setTimeout(action, Math.max(0, ms));
    timer.unref();
    this.#timers.push(timer);
  }

  #enqueue(task: () => Promise<void>): void {
    this.#queue = this.#queue
      .then(async () => {
        if (!this.#ended) await task();
      })
      .catch((error: unknown) => {
        // A send that fails means the connection or stream is gone: the subscriber resumes from its cursor.
        this.#hub.logger.debug?.('events: a delivery stopped after a failed send', {
          subscription_id: this.#spec.subscriptionId,
          error: String(error),
        });
        this.finish('closed', 'send_failed');
      });
  }

  async #consider(id: string, entry: LogEntry | undefined): Promise<void> {
    if (this.#ended) return;
    if (entry !== undefined && selects(this.#spec.selector, entry, this.#hub.catalog, this.#hub.onMatchError)) {
      await this.#spec.sink.event(toNotification(this.#spec.subscriptionId, id, entry, this.#sent));
      this.#sent = id;
    }
    this.#cursor = id;
  }

  async #catchUp(): Promise<void> {
    for (;;) {
      const entries = await this.#hub.store.read(this.#hub.log, {
        after: storeCursor(this.#cursor),
        limit: READ_BATCH,
      });
      for (const raw of entries) {
        if (this.#closing) return;
        await this.#consider(raw.id, parseLogEntry(raw.value));
      }
      if (entries.length < READ_BATCH) return;
    }
  }

  /** Reads from its own cursor to the end of the log. */
  wake(): void {
    if (this.#closing) return;
    this.#enqueue(() => this.#catchUp());
  }

  /** New entries the hub read after `previousTail`; used directly when this delivery is level with the hub. */
  offer(previousTail: string, batch: readonly { readonly id: string; readonly entry: LogEntry | undefined }[]): void {
    if (this.#closing) return;
    this.#enqueue(async () => {
      let start = 0;
      if (this.#cursor !== previousTail) {
        const at = batch.findIndex((item) => item.id === this.#cursor);
        if (at === -1) {
          await this.#catchUp();
          return;
        }
        start = at + 1;
      }
      for (const item of batch.slice(start)) {
        if (this.#closing) return;
        await this.#consider(item.id, item.entry);
      }
    });
  }

  /** Re-reads the subscription record in case a bus message was missed. */
  recheck(): void {
    const key = this.key;
    if (key === undefined || this.#closing) return;
    this.#enqueue(async () => {
      const record = parseRecord(await this.#hub.store.get(key));
      if (record === undefined) {
        this.terminate('expired');
        return;
      }
      const ended = endedReason(record, this.#hub.now());
      if (ended !== undefined) this.terminate(ended.reason, ended.message);
    });
  }

  /** Sends what is queued, then the termination notice, then stops. */
  terminate(reason: string, message?: string): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#enqueue(async () => {
      const notice: TerminationNotice = { subscription_id: this.#spec.subscriptionId, reason, cursor: this.#cursor };
      if (message !== undefined) notice.message = message;
      await this.#spec.sink.terminated(notice);
      this.finish('terminated', reason);
    });
  }

  /** Stops at once, without a notice. */
  finish(status: DeliveryEnd['status'], reason?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#closing = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#spec.signal?.removeEventListener('abort', this.#onAbort);
    this.#hub.remove(this);
    this.#resolve({ status, reason, cursor: this.#cursor });
  }
}

/**
 * The deliveries of one store on this instance. Reads each new stretch of
 * the log once and hands it to every delivery that is level with it; a
 * delivery that is behind reads for itself. Listens on the bus for
 * wake-ups and control messages, and re-reads on a timer in case a message
 * is lost.
 */
class Hub {
  readonly deliveries = new Set<Delivery>();
  readonly #byKey = new Map<string, Set<Delivery>>();
  #tail = '';
  #reading: Promise<void> | undefined;
  #again = false;
  #ticks = 0;
  #closed = false;
  #unsubscribe: Unsubscribe | undefined;
  #interval: NodeJS.Timeout | undefined;
  readonly log: string;
  readonly onMatchError: (error: unknown) => void;

  constructor(
    readonly store: Store,
    readonly catalog: Catalog,
    readonly logger: Logger,
    readonly now: () => number,
    readonly options: ResolvedOptions,
    readonly onEmpty: (hub: Hub) => void,
  ) {
    this.log = logStream(options.keyPrefix);
    this.onMatchError = matchFailed(logger);
  }

  async open(): Promise<void> {
    this.#unsubscribe = await this.store.subscribe(busChannel(this.options.keyPrefix), (message) => {
      this.#onMessage(message);
    });
    const head = await this.store.get(headKey(this.options.keyPrefix));
    this.#tail = typeof head === 'string' ? head : '';
    this.#interval = setInterval(() => {
      this.#tick();
    }, this.options.wakeIntervalMs);
    this.#interval.unref();
  }

  get closed(): boolean {
    return this.#closed;
  }

  #tick(): void {
    this.pull();
    this.#ticks += 1;
    if (this.#ticks % RECHECK_EVERY === 0) for (const delivery of this.deliveries) delivery.recheck();
  }

  #onMessage(raw: JsonValue): void {
    const message: BusMessage | undefined = parseBusMessage(raw);
    if (message === undefined) return;
    if (message.kind === 'appended') {
      this.pull();
      return;
    }
    for (const delivery of this.#byKey.get(message.key) ?? []) {
      if (message.kind === 'terminated') delivery.terminate(message.reason, message.message);
      else if (delivery.token !== message.token) delivery.finish('active', 'replaced');
    }
  }

  add(delivery: Delivery): void {
    this.deliveries.add(delivery);
    if (delivery.key !== undefined) {
      let set = this.#byKey.get(delivery.key);
      if (set === undefined) {
        set = new Set();
        this.#byKey.set(delivery.key, set);
      }
      set.add(delivery);
    }
    delivery.wake();
  }

  remove(delivery: Delivery): void {
    this.deliveries.delete(delivery);
    if (delivery.key !== undefined) {
      const set = this.#byKey.get(delivery.key);
      set?.delete(delivery);
      if (set?.size === 0) this.#byKey.delete(delivery.key);
    }
    if (this.deliveries.size === 0) this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#interval);
    this.onEmpty(this);
    const unsubscribe = this.#unsubscribe;
    if (unsubscribe !== undefined) {
      unsubscribe().catch((error: unknown) => {
        this.logger.warn('events: leaving the bus channel failed', { error: String(error) });
      });
    }
  }

  /** Reads what was appended since the last pull and offers it to every delivery. */
  pull(): void {
    if (this.#closed) return;
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    this.#reading = this.#readNew()
      .catch((error: unknown) => {
        this.logger.warn('events: reading the event log failed; retrying on the next wake-up', {
          error: String(error),
        });
      })
      .finally(() => {
        this.#reading = undefined;
        if (this.#again) {
          this.#again = false;
          this.pull();
        }
      });
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const entries = await this.store.read(this.log, { after: storeCursor(this.#tail), limit: READ_BATCH });
      if (entries.length === 0) return;
      const batch = entries.map((raw) => ({ id: raw.id, entry: parseLogEntry(raw.value) }));
      const previous = this.#tail;
      this.#tail = entries[entries.length - 1]?.id ?? previous;
      for (const delivery of this.deliveries) delivery.offer(previous, batch);
      if (entries.length < READ_BATCH) return;
    }
  }
}

function matchFailed(logger: Logger): (error: unknown) => void {
  return (error) => {
    logger.warn('events: an event type match function threw; the event was not delivered', { error: String(error) });
  };
}

function negotiatedId(ctx: RequestContext): string {
  return ctx.negotiated(EVENTS_PACKAGE)?.id ?? EVENTS_ID;
}

/**
 * The server half of event subscriptions: serves `<id>/list`,
 * `<id>/subscribe`, `<id>/unsubscribe`, `<id>/poll` and `<id>/stream`,
 * keeps the event log and the subscriptions in the core's `Store`, and
 * pushes events as notifications on connections that outlive a request.
 */
export function eventsServer<E extends EventDefinitions>(options: EventsServerOptions<E>): EventsServerExtension<E> {
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: options with an events map are required`);
  }
  const config = resolveOptions(options);
  const catalog = buildCatalog(options.events, WHERE);
  const supported = [...catalog.keys()];
  const log = logStream(config.keyPrefix);
  const hubs = new Map<Store, Promise<Hub>>();
  /** The open hubs, for synchronous counting. */
  const live = new Set<Hub>();
  const retentionMs = config.retainSeconds * 1000;

  async function hubFor(store: Store, logger: Logger): Promise<Hub> {
    const existing = hubs.get(store);
    if (existing !== undefined) {
      const hub = await existing;
      if (!hub.closed) return hub;
    }
    const created = new Hub(store, catalog, logger, config.now, config, (hub) => {
      live.delete(hub);
      const entry = hubs.get(store);
      void entry?.then((current) => {
        if (current === hub && hubs.get(store) === entry) hubs.delete(store);
      });
    });
    const opening = created.open().then(() => {
      live.add(created);
      return created;
    });
    hubs.set(store, opening);
    try {
      return await opening;
    } catch (error) {
      hubs.delete(store);
      throw error;
    }
  }

  async function startDelivery(
    store: Store,
    logger: Logger,
    spec: Omit<DeliverySpec, 'token'> & { token?: string },
  ): Promise<Delivery> {
    for (;;) {
      const hub = await hubFor(store, logger);
      // The hub may have emptied and closed while this task waited; adding happens in the same turn as the check.
      if (hub.closed) continue;
      const delivery = new Delivery(hub, { ...spec, token: spec.token ?? randomUUID() });
      hub.add(delivery);
      return delivery;
    }
  }

  async function head(store: Store): Promise<string> {
    const value = await store.get(headKey(config.keyPrefix));
    return typeof value === 'string' ? value : '';
  }

  /** Refuses a cursor the store cannot read from. */
  async function checkCursor(store: Store, cursor: string): Promise<void> {
    try {
      await store.read(log, { after: storeCursor(cursor), limit: 1 });
    } catch (error) {
      if (error instanceof RangeError) throw invalidCursor();
      throw error;
    }
  }

  async function loadRecord(
    store: Store,
    principal: string,
    subscriptionId: string,
  ): Promise<{ key: string; record: SubscriptionRecord }> {
    const key = subscriptionKey(config.keyPrefix, principal, subscriptionId);
    const record = parseRecord(await store.get(key));
    if (record === undefined) throw notFound(subscriptionId);
    return { key, record };
  }

  function recordTtlMs(record: SubscriptionRecord): number {
    return Math.max(1, record.expires_ms - config.now()) + config.graceSeconds * 1000;
  }

  /** Adds or removes one subscription in the principal's index; `false` when adding would exceed the limit. */
  async function updateIndex(
    store: Store,
    principal: string,
    subscriptionId: string,
    expiresMs: number | undefined,
  ): Promise<boolean> {
    const key = principalIndexKey(config.keyPrefix, principal);
    for (let attempt = 0; attempt < 50; attempt++) {
      const raw = await store.get(key);
      // A Map: the id is the client's, and `__proto__` or `constructor` must count as the ids they are.
      const live = new Map(Object.entries(parsePrincipalIndex(raw, config.now())));
      if (expiresMs === undefined) live.delete(subscriptionId);
      else {
        if (!live.has(subscriptionId) && live.size >= config.maxSubscriptionsPerPrincipal) return false;
        live.set(subscriptionId, expiresMs);
      }
      const longest = Math.max(0, ...live.values());
      const ttlMs = Math.max(1, longest - config.now()) + config.graceSeconds * 1000;
      if (await store.compareAndSet(key, raw, Object.fromEntries(live), { ttlMs })) return true;
    }
    throw new ExtensionError('transient', 'EVENTS_BUSY', 'Too many concurrent subscription changes for this caller', {
      retryAfterSeconds: 1,
      suggestion: 'Retry in a moment.',
    });
  }

  async function endSubscription(
    store: Store,
    principal: string,
    key: string,
    record: SubscriptionRecord,
    reason: string,
    message?: string,
  ): Promise<void> {
    const ended: SubscriptionRecord = {
      ...record,
      terminated: message === undefined ? { reason } : { reason, message },
    };
    await store.set(key, recordToJson(ended), { ttlMs: config.graceSeconds * 1000 });
    await updateIndex(store, principal, record.subscription_id, undefined);
    const notice: BusMessage = { kind: 'terminated', key, reason, message };
    await store.publish(busChannel(config.keyPrefix), busMessageToJson(notice));
  }

  async function replaceOthers(store: Store, key: string, token: string): Promise<void> {
    await store.publish(busChannel(config.keyPrefix), busMessageToJson({ kind: 'replaced', key, token }));
  }

  const list = (): ListEventsResult => ({
    events: [...catalog.values()].map((entry) => entry.descriptor),
    poll_interval_seconds: config.pollIntervalSeconds,
  });

  async function subscribe(params: Record<string, unknown>, ctx: RequestContext): Promise<SubscriptionResponse> {
    const parsed = parseSubscriptionRequest(params);
    if (!parsed.ok) throw invalid(parsed.failure);
    const request = parsed.value;
    const filter = request.filter ?? {};
    const failure = checkSubscription(request.events, filter, catalog);
    if (failure !== undefined) throw invalid(failure);
    const { store } = ctx;
    const subscriptionId = request.subscription_id ?? randomUUID();
    const denied = (reason: string): SubscriptionResponse => ({
      subscription_id: subscriptionId,
      status: 'denied',
      reason,
      supported_events: supported,
      poll_interval_seconds: config.pollIntervalSeconds,
    });
    if (options.authorize !== undefined) {
      const verdict = await options.authorize(
        { subscription_id: subscriptionId, events: request.events, filter, principal: ctx.principal },
        ctx,
      );
      if (verdict !== true)
        return denied(
          typeof verdict === 'string' && verdict.length > 0 ? verdict : 'Not allowed to subscribe to these events',
        );
    }
    if (request.cursor !== undefined) await checkCursor(store, request.cursor);
    const ttlSeconds = grantedTtlSeconds(request.ttl_seconds, config.defaultTtlSeconds, config.maxTtlSeconds);
    const now = config.now();
    const expiresMs = now + ttlSeconds * 1000;
    if (!(await updateIndex(store, ctx.principal, subscriptionId, expiresMs))) {
      return denied(
        `This caller already holds the maximum of ${config.maxSubscriptionsPerPrincipal} subscriptions; unsubscribe from one first`,
      );
    }
    const start = request.cursor ?? (await head(store));
    const delivery: DeliveryMode = chooseDelivery(
      request.delivery,
      ctx.connection !== undefined,
      ctx.negotiated(EVENTS_PACKAGE) !== undefined,
    );
    const record: SubscriptionRecord = {
      v: 1,
      subscription_id: subscriptionId,
      events: [...new Set(request.events)],
      filter,
      delivery,
      created_at: new Date(now).toISOString(),
      expires_ms: expiresMs,
      cursor: start,
    };
    const key = subscriptionKey(config.keyPrefix, ctx.principal, subscriptionId);
    await store.set(key, recordToJson(record), { ttlMs: recordTtlMs(record) });
    const token = randomUUID();
    await replaceOthers(store, key, token);
    const connection = ctx.connection;
    if (delivery === 'notification' && connection !== undefined) {
      const id = negotiatedId(ctx);
      await startDelivery(store, ctx.logger, {
        key,
        token,
        subscriptionId,
        selector: { events: new Set(record.events), filter },
        cursor: start,
        expiresMs,
        signal: connection.signal,
        sink: {
          event: (notification) => connection.notify(eventsNotification(id, 'event'), { ...notification }),
          terminated: (notice) => connection.notify(eventsNotification(id, 'terminated'), { ...notice }),
        },
      });
    }
    return {
      subscription_id: subscriptionId,
      status: 'active',
      expires_at: new Date(expiresMs).toISOString(),
      supported_events: supported,
      cursor: start,
      delivery,
      ttl_seconds: ttlSeconds,
      poll_interval_seconds: config.pollIntervalSeconds,
    };
  }

  async function unsubscribe(params: Record<string, unknown>, ctx: RequestContext): Promise<UnsubscribeResult> {
    const parsed = parseUnsubscribeRequest(params);
    if (!parsed.ok) throw invalid(parsed.failure);
    const { subscription_id: subscriptionId } = parsed.value;
    const { key, record } = await loadRecord(ctx.store, ctx.principal, subscriptionId);
    if (record.terminated === undefined) await endSubscription(ctx.store, ctx.principal, key, record, 'unsubscribed');
    return { subscription_id: subscriptionId, status: 'unsubscribed' };
  }

  async function poll(params: Record<string, unknown>, ctx: RequestContext): Promise<PollResult> {
    const parsed = parsePollRequest(params);
    if (!parsed.ok) throw invalid(parsed.failure);
    const request = parsed.value;
    const { store } = ctx;
    const { key, record } = await loadRecord(store, ctx.principal, request.subscription_id);
    const from = request.cursor ?? record.cursor;
    const base = {
      subscription_id: record.subscription_id,
      poll_interval_seconds: config.pollIntervalSeconds,
      expires_at: new Date(record.expires_ms).toISOString(),
    };
    const ended = endedReason(record, config.now());
    if (ended !== undefined) {
      return { ...base, status: 'terminated', events: [], cursor: from, has_more: false, reason: ended.reason };
    }
    const selector: Selector = { events: new Set(record.events), filter: record.filter };
    let scan;
    try {
      scan = await scanLog(
        (after, limit) => store.read(log, { after, limit }),
        from,
        (entry) => selects(selector, entry, catalog, matchFailed(ctx.logger)),
        request.limit ?? DEFAULT_POLL_LIMIT,
        MAX_SCAN,
      );
    } catch (error) {
      if (error instanceof RangeError) throw invalidCursor();
      throw error;
    }
    let previous = from;
    const events = scan.matches.map(({ id, entry }) => {
      const notification = toNotification(record.subscription_id, id, entry, previous);
      previous = id;
      return notification;
    });
    if (scan.cursor !== record.cursor) {
      await store.set(key, recordToJson({ ...record, cursor: scan.cursor }), { ttlMs: recordTtlMs(record) });
    }
    return { ...base, status: 'active', events, cursor: scan.cursor, has_more: scan.hasMore };
  }

  async function stream(params: Record<string, unknown>, ctx: RequestContext): Promise<StreamResult> {
    const parsed = parseStreamRequest(params);
    if (!parsed.ok) throw invalid(parsed.failure);
    const request = parsed.value;
    const { store } = ctx;
    const { key, record } = await loadRecord(store, ctx.principal, request.subscription_id);
    const from = request.cursor ?? record.cursor;
    await checkCursor(store, from);
    const id = negotiatedId(ctx);
    const sink: Sink = {
      event: (notification) => ctx.notify(eventsNotification(id, 'event'), { ...notification }),
      terminated: (notice) => ctx.notify(eventsNotification(id, 'terminated'), { ...notice }),
    };
    const ended = endedReason(record, config.now());
    if (ended !== undefined) {
      const notice: TerminationNotice = { subscription_id: record.subscription_id, reason: ended.reason, cursor: from };
      if (ended.message !== undefined) notice.message = ended.message;
      await sink.terminated(notice);
      return { subscription_id: record.subscription_id, status: 'terminated', cursor: from, reason: ended.reason };
    }
    const token = randomUUID();
    await replaceOthers(store, key, token);
    const delivery = await startDelivery(store, ctx.logger, {
      key,
      token,
      subscriptionId: record.subscription_id,
      selector: { events: new Set(record.events), filter: record.filter },
      cursor: from,
      expiresMs: record.expires_ms,
      maxMs: config.maxStreamSeconds * 1000,
      signal: ctx.signal,
      sink,
    });
    const end = await delivery.done;
    const result: StreamResult = {
      subscription_id: record.subscription_id,
      status: end.status === 'terminated' ? 'terminated' : 'active',
      cursor: end.cursor,
    };
    if (end.reason !== undefined) result.reason = end.reason;
    return result;
  }

  const settings: EventsServerSettings = {
    version: EVENTS_WIRE_VERSION,
    delivery: ['notification', 'stream', 'poll'],
    poll_interval_seconds: config.pollIntervalSeconds,
    default_ttl_seconds: config.defaultTtlSeconds,
    max_ttl_seconds: config.maxTtlSeconds,
    max_stream_seconds: config.maxStreamSeconds,
  };

  return {
    side: 'server',
    keepsCallerState: true,
    name: EVENTS_PACKAGE,
    ids: [EVENTS_ID],
    settings,
    peerSettings: EventsClientSettingsSchema,
    methods: {
      list: () => ({ ...list() }),
      subscribe: async (params, ctx) => ({ ...(await subscribe(params, ctx)) }),
      unsubscribe: async (params, ctx) => ({ ...(await unsubscribe(params, ctx)) }),
      poll: async (params, ctx) => ({ ...(await poll(params, ctx)) }),
      stream: async (params, ctx) => ({ ...(await stream(params, ctx)) }),
    },

    async publish(store, event, payload, publishOptions = {}) {
      const type = catalog.get(event);
      if (type === undefined) {
        throw new ConfigurationError(
          'UNKNOWN_EVENT',
          `publish: event type "${event}" is not declared (declared: ${supported.join(', ')})`,
        );
      }
      const violation = type.checkPayload(payload);
      if (violation !== undefined) {
        throw new ConfigurationError(
          'INVALID_EVENT_PAYLOAD',
          `publish("${event}"): payload${violation.pointer} ${violation.message}`,
        );
      }
      const hint = publishOptions.actionHint;
      if (hint !== undefined && !isActionHint(hint)) {
        throw new ConfigurationError(
          'INVALID_EVENT_PAYLOAD',
          `publish("${event}"): actionHint must be { recommended_tool?, parameters?, reason? }`,
        );
      }
      const entry: LogEntry = {
        event,
        timestamp: new Date(config.now()).toISOString(),
        payload,
        ...(hint === undefined ? {} : { action_hint: hint }),
      };
      const cursor = await store.append(log, logEntryToJson(entry), {
        maxLength: config.retainEvents,
        ttlMs: retentionMs,
      });
      await store.set(headKey(config.keyPrefix), cursor, { ttlMs: retentionMs });
      await store.publish(busChannel(config.keyPrefix), busMessageToJson({ kind: 'appended', cursor }));
      return cursor;
    },

    async watch(store, watchOptions, listener) {
      const events = [...watchOptions.events];
      const filter = watchOptions.filter ?? {};
      const failure = checkSubscription(events, filter, catalog);
      if (failure !== undefined) throw new ConfigurationError(failure.code, `watch: ${failure.message}`);
      if (typeof listener !== 'function')
        throw new ConfigurationError('INVALID_OPTION', 'watch: listener must be a function');
      const start = watchOptions.after ?? (await head(store));
      const delivery = await startDelivery(store, config.logger, {
        key: undefined,
        subscriptionId: `watch-${randomUUID()}`,
        selector: { events: new Set(events), filter },
        cursor: start,
        sink: {
          event: async (notification) => {
            await listener(notification);
          },
          terminated: () => Promise.resolve(),
        },
      });
      return {
        cursor: start,
        async stop() {
          delivery.finish('closed', 'stopped');
          await delivery.done;
        },
      };
    },

    async terminate(store, target, reason = 'revoked', message) {
      if (
        !isSubscriptionId(target.subscriptionId) ||
        typeof reason !== 'string' ||
        reason.length === 0 ||
        reason.length > 64
      ) {
        throw new ConfigurationError(
          'INVALID_OPTION',
          'terminate: subscriptionId must be a subscription id and reason a string of 1 to 64 characters',
        );
      }
      const key = subscriptionKey(config.keyPrefix, target.principal, target.subscriptionId);
      const record = parseRecord(await store.get(key));
      if (record === undefined || record.terminated !== undefined) return false;
      await endSubscription(store, target.principal, key, record, reason, message);
      return true;
    },

    async stop() {
      await Promise.allSettled([...hubs.values()]);
      const all = [...live];
      const deliveries = all.flatMap((hub) => [...hub.deliveries]);
      for (const delivery of deliveries) delivery.terminate('server_shutdown');
      await Promise.all(deliveries.map((delivery) => delivery.done));
      for (const hub of all) hub.close();
      hubs.clear();
    },

    activeDeliveries() {
      let count = 0;
      for (const hub of live) count += hub.deliveries.size;
      return count;
    },
  };
}

export { registerEventTools, EVENT_TOOL_NAMES } from './tools.js';
