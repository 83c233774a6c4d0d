/**
 * The store's pub/sub on Redis: a second connection in subscriber mode
 * (opened on the first subscription), one listener per subscription, and
 * unsubscribing that never waits longer than a command may.
 */
import type { JsonValue } from '@ext/core/kit';
import type { Logger, Unsubscribe } from '@ext/core';
import { closeClient, type RedisClient } from './connection.js';
import { withDeadline } from './redis-faults.js';

type Listener = (message: string) => void;

/** What the subscriptions need of their store. */
export interface SubscriptionsDeps {
  /** The store's connection, duplicated for subscriber mode. */
  readonly client: RedisClient;
  readonly logger: Logger;
  readonly timeoutMs: number;
  /** Runs `work` as the store runs every operation: failing fast during an outage, under the deadline. */
  readonly call: <T>(work: () => Promise<T>) => Promise<T>;
  readonly closed: () => boolean;
}

/** The subscriber connection of one store and what is subscribed on it. */
export class Subscriptions {
  readonly #deps: SubscriptionsDeps;
  #subscriber: Promise<RedisClient> | undefined;

  constructor(deps: SubscriptionsDeps) {
    this.#deps = deps;
  }

  // A connection in subscriber mode cannot run other commands, so pub/sub gets its own.
  #subscriberClient(): Promise<RedisClient> {
    if (!this.#subscriber) {
      const subscriber = this.#deps.client.duplicate();
      // Debug only, as for the main connection: its outages are the main connection's too.
      subscriber.on('error', (error: unknown) => {
        this.#deps.logger.debug?.('RedisStore: subscriber connection error', { error: String(error) });
      });
      this.#subscriber = subscriber.connect().then(
        () => subscriber,
        (error: unknown) => {
          this.#subscriber = undefined;
          throw error;
        },
      );
    }
    return this.#subscriber;
  }

  /** Subscribes `listener` to the Redis channel `name` (`channel` as the caller named it, for logs). */
  async subscribe(name: string, channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    const { call, logger } = this.#deps;
    const subscriber = await call(() => this.#subscriberClient());
    let active = true;
    // One wrapper per subscription: unsubscribing removes this listener only, and silences it at once.
    const wrapped: Listener = (text) => {
      if (!active) return;
      try {
        listener(JSON.parse(text) as JsonValue);
      } catch (error) {
        logger.warn('RedisStore: a subscriber threw; other subscribers are unaffected', {
          channel,
          error: String(error),
        });
      }
    };
    const subscribing = subscriber.subscribe(name, wrapped);
    try {
      await call(() => subscribing);
    } catch (error) {
      // It may still land after its deadline: the caller was told it failed, so it must deliver nothing.
      active = false;
      subscribing.then(() => subscriber.unsubscribe(name, wrapped)).catch(() => undefined);
      throw error;
    }
    return () =>
      this.#unsubscribe(subscriber, name, wrapped, () => {
        const was = active;
        active = false;
        return was;
      });
  }

  // Delivery stops at once; Redis forgets the subscription when it can (during an outage,
  // after it), so the wait is bounded and its failure only noted.
  async #unsubscribe(
    subscriber: RedisClient,
    name: string,
    wrapped: Listener,
    deactivate: () => boolean,
  ): Promise<void> {
    if (!deactivate() || this.#deps.closed()) return;
    await withDeadline(subscriber.unsubscribe(name, wrapped), this.#deps.timeoutMs).catch((error: unknown) => {
      this.#deps.logger.debug?.('RedisStore: UNSUBSCRIBE is still pending', { error: String(error) });
    });
  }

  /** Closes the subscriber connection, if one was opened. */
  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber) await this.#closeSubscriber(subscriber);
  }

  async #closeSubscriber(subscriber: Promise<RedisClient>): Promise<void> {
    let connection: RedisClient | undefined;
    try {
      connection = await withDeadline(subscriber, this.#deps.timeoutMs);
    } catch (error) {
      // Still connecting (an outage) or never connected: drop it whenever it settles.
      this.#deps.logger.debug?.('RedisStore: subscriber not connected at close', { error: String(error) });
      subscriber
        .then((late) => {
          late.destroy();
        })
        .catch(() => undefined);
      return;
    }
    await closeClient(connection, this.#deps.timeoutMs);
  }
}
