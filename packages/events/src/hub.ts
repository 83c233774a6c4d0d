/**
 * The hubs of this instance: one per store in use, which reads each new
 * stretch of the log once for all its deliveries and listens on the bus.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@ext/core/kit';
import type { Logger, Store, Unsubscribe } from '@ext/core';
import type { Catalog } from './catalog.js';
import { Delivery, matchFailed, READ_BATCH, type DeliveryHub, type DeliverySpec } from './delivery.js';
import { storeCursor } from './feed.js';
import type { ResolvedOptions } from './options.js';
import { busChannel, headKey, logStream, parseBusMessage, parseLogEntry, type BusMessage } from './store-layout.js';

/** Every this many wake-ups, deliveries re-read their subscription record in case a bus message was missed. */
const RECHECK_EVERY = 5;

/**
 * The deliveries of one store on this instance. Reads each new stretch of
 * the log once and hands it to every delivery that is level with it; a
 * delivery that is behind reads for itself. Listens on the bus for
 * wake-ups and control messages, and re-reads on a timer in case a message
 * is lost.
 */
class Hub implements DeliveryHub {
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

/** This instance's hubs by store: opened with their first delivery, closed when their last one ends. */
export class Hubs {
  readonly #hubs = new Map<Store, Promise<Hub>>();
  /** The open hubs, for synchronous counting. */
  readonly #live = new Set<Hub>();
  readonly #catalog: Catalog;
  readonly #config: ResolvedOptions;

  constructor(catalog: Catalog, config: ResolvedOptions) {
    this.#catalog = catalog;
    this.#config = config;
  }

  async #hubFor(store: Store, logger: Logger): Promise<Hub> {
    const hubs = this.#hubs;
    const existing = hubs.get(store);
    if (existing !== undefined) {
      const hub = await existing;
      if (!hub.closed) return hub;
    }
    const created = new Hub(store, this.#catalog, logger, this.#config.now, this.#config, (hub) => {
      this.#live.delete(hub);
      const entry = hubs.get(store);
      void entry?.then((current) => {
        if (current === hub && hubs.get(store) === entry) hubs.delete(store);
      });
    });
    const opening = created.open().then(() => {
      this.#live.add(created);
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

  /** Starts a delivery on the hub of `store` (opening it if need be); `logger` serves a hub it opens. */
  async start(store: Store, logger: Logger, spec: Omit<DeliverySpec, 'token'> & { token?: string }): Promise<Delivery> {
    for (;;) {
      const hub = await this.#hubFor(store, logger);
      // The hub may have emptied and closed while this task waited; adding happens in the same turn as the check.
      if (hub.closed) continue;
      const delivery = new Delivery(hub, { ...spec, token: spec.token ?? randomUUID() });
      hub.add(delivery);
      return delivery;
    }
  }

  /** Ends every delivery with a `server_shutdown` notice, then closes every hub. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.#hubs.values()]);
    const all = [...this.#live];
    const deliveries = all.flatMap((hub) => [...hub.deliveries]);
    for (const delivery of deliveries) delivery.terminate('server_shutdown');
    await Promise.all(deliveries.map((delivery) => delivery.done));
    for (const hub of all) hub.close();
    this.#hubs.clear();
  }

  /** Deliveries running on this instance. */
  activeDeliveries(): number {
    let count = 0;
    for (const hub of this.#live) count += hub.deliveries.size;
    return count;
  }
}
