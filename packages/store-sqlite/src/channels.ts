/**
 * The store's pub/sub: subscribers by channel, delivery to them, and (with
 * `pubsub: 'poll'`) the timer that reads messages other processes wrote.
 */
import { StoreUnavailableError, type Logger, type Unsubscribe } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import type { Statements } from './schema.js';

type Listener = (message: JsonValue) => void;

/** What the channels need of their store. */
export interface ChannelsDeps {
  readonly logger: Logger;
  /** Whether messages come from the table (`poll`) or only from this store object. */
  readonly polling: boolean;
  readonly pollIntervalMs: number;
  readonly sql: Pick<Statements, 'lastMessage' | 'messagesAfter'>;
  /** A database error as the caller should see it (an outage is recorded and logged once there). */
  readonly failure: (error: unknown) => unknown;
  readonly closed: () => boolean;
}

/** The subscribers of one store, and the poll that feeds them in `poll` mode. */
export class Channels {
  readonly #deps: ChannelsDeps;
  readonly #listeners = new Map<string, Set<Listener>>();
  #pollTimer: NodeJS.Timeout | undefined;
  #lastMessageId = 0;

  constructor(deps: ChannelsDeps) {
    this.#deps = deps;
  }

  subscribe(channel: string, listener: (message: JsonValue) => void): Unsubscribe {
    if (this.#deps.polling && this.#pollTimer === undefined) this.#startPolling();
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
    }
    // A fresh wrapper per call, so subscribing the same function twice gives two independent subscriptions.
    const wrapped: Listener = (message) => {
      listener(message);
    };
    listeners.add(wrapped);
    return (): Promise<void> => {
      const current = this.#listeners.get(channel);
      current?.delete(wrapped);
      if (current?.size === 0) this.#listeners.delete(channel);
      if (this.#listeners.size === 0) this.#stopPolling();
      return Promise.resolve();
    };
  }

  /** Hands `text` (canonical JSON) to every subscriber of `channel`, each in a microtask of its own. */
  deliver(channel: string, text: string): void {
    for (const listener of this.#listeners.get(channel) ?? []) {
      // Each listener parses its own copy, so one cannot alter what another sees.
      const message = JSON.parse(text) as JsonValue;
      queueMicrotask(() => {
        try {
          listener(message);
        } catch (error) {
          this.#deps.logger.warn('SqliteStore: a subscriber threw; other subscribers are unaffected', {
            channel,
            error: String(error),
          });
        }
      });
    }
  }

  /** Stops polling and forgets every subscriber. */
  close(): void {
    this.#stopPolling();
    this.#listeners.clear();
  }

  #startPolling(): void {
    const { sql, pollIntervalMs } = this.#deps;
    // Only messages published from now on are delivered, as with any pub/sub.
    this.#lastMessageId = sql.lastMessage.get()?.id ?? 0;
    const poll = (): void => {
      this.#pollTimer = undefined;
      if (this.#deps.closed() || this.#listeners.size === 0) return;
      try {
        for (const row of sql.messagesAfter.all(this.#lastMessageId)) {
          this.#lastMessageId = row.id;
          this.deliver(row.channel, row.message);
        }
      } catch (error) {
        // An outage is logged once (by the store's failure); anything else each time, as before.
        const failure = this.#deps.failure(error);
        if (!StoreUnavailableError.isInstance(failure)) {
          this.#deps.logger.warn('SqliteStore: polling for messages failed; it will be retried', {
            error: String(error),
          });
        }
      }
      this.#pollTimer = setTimeout(poll, pollIntervalMs);
      this.#pollTimer.unref();
    };
    this.#pollTimer = setTimeout(poll, pollIntervalMs);
    this.#pollTimer.unref();
  }

  #stopPolling(): void {
    if (this.#pollTimer !== undefined) clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
  }
}
