/** Pure, client side: one subscription's events kept in order and without repeats, gaps detected. */
import type { EventNotification } from './schema.js';

/** What to do with an arriving event notification. */
export type SequenceAction = 'deliver' | 'duplicate' | 'gap';

/**
 * Keeps one subscription's events in order without duplicates on the
 * client. Each notification names the cursor of the one sent before it;
 * when that is not the last one delivered, something was lost in between
 * (a gap: fetch the missing events by polling from `last`) or this one was
 * already delivered (a duplicate). Remembers the last `memory` cursors.
 */
export class EventSequencer {
  #last: string;
  readonly #seen = new Set<string>();
  readonly #order: string[] = [];
  readonly #memory: number;

  constructor(start: string, memory = 1024) {
    this.#last = start;
    this.#memory = memory;
  }

  /** The cursor of the last delivered event (or the start). */
  get last(): string {
    return this.#last;
  }

  /** Classifies a notification; does not record it (call {@link delivered}). */
  classify(notification: Pick<EventNotification, 'cursor' | 'previous_cursor'>): SequenceAction {
    if (this.#seen.has(notification.cursor) || notification.cursor === this.#last) return 'duplicate';
    return notification.previous_cursor === this.#last ? 'deliver' : 'gap';
  }

  /** Whether this cursor was delivered recently. */
  has(cursor: string): boolean {
    return this.#seen.has(cursor) || cursor === this.#last;
  }

  /** Records a delivered event. */
  delivered(cursor: string): void {
    this.#last = cursor;
    if (this.#seen.has(cursor)) return;
    this.#seen.add(cursor);
    this.#order.push(cursor);
    if (this.#order.length > this.#memory) {
      const dropped = this.#order.shift();
      if (dropped !== undefined) this.#seen.delete(dropped);
    }
  }
}
