/**
 * One subscriber's feed on this instance: a `Delivery` reads the log from
 * its cursor through its store's hub and sends what it selects, in order.
 */
import type { Logger, Store } from '@ext/core';
import type { Catalog } from './catalog.js';
import { selects, storeCursor, toNotification, type Selector } from './feed.js';
import type { EventNotification, TerminationNotice } from './schema.js';
import { endedReason, parseLogEntry, parseRecord, type LogEntry } from './store-layout.js';

/** Log entries read in one go. */
export const READ_BATCH = 500;

/** What a delivery reads through: the hub of its store on this instance. */
export interface DeliveryHub {
  readonly store: Store;
  /** The log's stream name. */
  readonly log: string;
  readonly catalog: Catalog;
  readonly logger: Logger;
  readonly now: () => number;
  readonly onMatchError: (error: unknown) => void;
  /** Forgets a delivery that ended. */
  remove(delivery: Delivery): void;
}

/** Where events of one delivery go. */
export interface Sink {
  event(notification: EventNotification): Promise<void>;
  terminated(notice: TerminationNotice): Promise<void>;
}

export interface DeliveryEnd {
  readonly status: 'active' | 'terminated' | 'closed';
  readonly reason?: string | undefined;
  readonly cursor: string;
}

export interface DeliverySpec {
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
  /**
   * Why the subscription no longer delivers, read from the store on a
   * recheck; default: from the subscription record at `key`.
   */
  readonly ended?: (() => Promise<{ reason: string; message?: string | undefined } | undefined>) | undefined;
}

/**
 * One subscriber's feed on this instance: reads the log from its cursor
 * and sends what it selects, strictly in order (one task at a time).
 */
export class Delivery {
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
  readonly #hub: DeliveryHub;
  readonly #onAbort = (): void => {
    this.finish('closed', 'cancelled');
  };

  constructor(hub: DeliveryHub, spec: DeliverySpec) {
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
      const ended = this.#spec.ended === undefined ? await this.#recordEnded(key) : await this.#spec.ended();
      if (ended !== undefined) this.terminate(ended.reason, ended.message);
    });
  }

  async #recordEnded(key: string): Promise<{ reason: string; message?: string | undefined } | undefined> {
    const record = parseRecord(await this.#hub.store.get(key));
    return record === undefined ? { reason: 'expired' } : endedReason(record, this.#hub.now());
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

/** Reports an author's `match` function that threw (the event counts as not matching). */
export function matchFailed(logger: Logger): (error: unknown) => void {
  return (error) => {
    logger.warn('events: an event type match function threw; the event was not delivered', { error: String(error) });
  };
}
