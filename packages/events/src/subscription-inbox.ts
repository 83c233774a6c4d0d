/**
 * Client side: the events of one subscription handed to its `onEvent`
 * strictly in order and once each, however they arrive. Every task that
 * touches them runs in one queue; the sequencer tells repeats and gaps; a
 * gap is filled by polling from the last delivered event.
 */
import type { Logger } from '@ext/core';
import type { EventNotification, PollResult } from './schema.js';
import { EventSequencer, type SequenceAction } from './sequencer.js';
import type { SubscribeOptions } from './subscribe-options.js';

export class SubscriptionInbox {
  readonly #id: string;
  readonly #options: SubscribeOptions;
  /** The logger of the subscription's connection now. */
  readonly #logger: () => Logger;
  #sequencer: EventSequencer;
  /** Whether the sequencer holds a real position (else the first subscribe starts at the server's head). */
  #positioned: boolean;
  #queue: Promise<void> = Promise.resolve();
  /** Poll position (may be past the last delivered event, over filtered-out ones). */
  pollCursor: string | undefined;

  constructor(id: string, options: SubscribeOptions, logger: () => Logger) {
    this.#id = id;
    this.#options = options;
    this.#logger = logger;
    this.#sequencer = new EventSequencer(options.cursor ?? '');
    this.#positioned = options.cursor !== undefined;
  }

  /** The cursor of the last delivered event. */
  get last(): string {
    return this.#sequencer.last;
  }

  /** Where to subscribe from: the last delivered event, or nowhere before a position is held (the server's head). */
  get from(): string | undefined {
    return this.#positioned ? this.#sequencer.last : undefined;
  }

  /** Holds `cursor`, the server's head, as the position, unless one is held already. */
  placeAt(cursor: string | undefined): void {
    if (this.#positioned) return;
    this.#sequencer = new EventSequencer(cursor ?? '');
    this.#positioned = true;
  }

  classify(event: EventNotification): SequenceAction {
    return this.#sequencer.classify(event);
  }

  /** Whether the event at `cursor` was delivered already. */
  has(cursor: string): boolean {
    return this.#sequencer.has(cursor);
  }

  /** Runs tasks one at a time, so events are handed over strictly in order. */
  enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task);
    this.#queue = run.catch((error: unknown) => {
      this.#logger().warn('events: a subscription task failed', {
        subscription_id: this.#id,
        error: String(error),
      });
    });
    return run;
  }

  /** Settles once the tasks queued so far have run. */
  drained(): Promise<void> {
    return this.#queue;
  }

  async deliver(event: EventNotification): Promise<void> {
    this.#sequencer.delivered(event.cursor);
    try {
      await this.#options.onEvent(event);
    } catch (error) {
      // The subscriber's own failure must not stop the feed; it is reported, and the event counts as delivered.
      this.#logger().warn('events: onEvent threw', {
        subscription_id: this.#id,
        cursor: event.cursor,
        error: String(error),
      });
    }
  }

  /** Delivers those of `events` not delivered yet. */
  async deliverNew(events: readonly EventNotification[]): Promise<void> {
    for (const event of events) if (!this.#sequencer.has(event.cursor)) await this.deliver(event);
  }

  /** Fetches with `poll`, from the last delivered event, what was lost in between. */
  async fillGap(poll: (cursor: string) => Promise<PollResult | undefined>): Promise<void> {
    for (;;) {
      const result = await poll(this.#sequencer.last);
      if (result === undefined) return;
      await this.deliverNew(result.events);
      if (result.status === 'terminated' || !result.has_more) return;
    }
  }
}
