/**
 * Pure: one subscriber's feed from the log: which entries it selects, their
 * wire form, and a bounded scan of the log from a cursor (for polls).
 */
import type { StreamEntry } from '@ext/core';
import { projectFilter, type Catalog } from './catalog.js';
import type { EventNotification } from './schema.js';
import { parseLogEntry, type LogEntry } from './store-layout.js';

/** What a subscriber wants from the log. */
export interface Selector {
  readonly events: ReadonlySet<string>;
  readonly filter: Readonly<Record<string, unknown>>;
}

/** Whether a log entry is for this subscriber. Never throws: a throwing `match` counts as no match and is reported. */
export function selects(
  selector: Selector,
  entry: LogEntry,
  catalog: Catalog,
  onMatchError: (error: unknown) => void,
): boolean {
  if (!selector.events.has(entry.event)) return false;
  const type = catalog.get(entry.event);
  if (type === undefined) return false;
  try {
    return type.match(projectFilter(selector.filter, type.filterFields), entry.payload);
  } catch (error) {
    onMatchError(error);
    return false;
  }
}

/** The wire form of one matching entry on a subscription. */
export function toNotification(
  subscriptionId: string,
  id: string,
  entry: LogEntry,
  previousCursor: string,
): EventNotification {
  const notification: EventNotification = {
    type: 'event',
    subscription_id: subscriptionId,
    event: entry.event,
    timestamp: entry.timestamp,
    payload: entry.payload,
    cursor: id,
    previous_cursor: previousCursor,
  };
  if (entry.action_hint !== undefined) notification.action_hint = entry.action_hint;
  return notification;
}

/** The store's cursor for a wire cursor: `""` is the start of the log. */
export function storeCursor(cursor: string): string | undefined {
  return cursor === '' ? undefined : cursor;
}

export interface ScanResult {
  readonly matches: readonly { readonly id: string; readonly entry: LogEntry }[];
  /** Where the next scan continues. */
  readonly cursor: string;
  /** The scan stopped before the end of the log (limit or scan budget reached). */
  readonly hasMore: boolean;
}

/**
 * Reads the log after `after` and keeps what `wanted` accepts, until
 * `limit` matches, the end of the log, or `maxScan` entries read. The
 * returned cursor never skips an unread entry.
 */
export async function scanLog(
  read: (after: string | undefined, limit: number) => Promise<StreamEntry[]>,
  after: string,
  wanted: (entry: LogEntry) => boolean,
  limit: number,
  maxScan: number,
  batch = 500,
): Promise<ScanResult> {
  const matches: { id: string; entry: LogEntry }[] = [];
  let cursor = after;
  let scanned = 0;
  for (;;) {
    const size = Math.max(1, Math.min(batch, maxScan - scanned));
    const entries = await read(storeCursor(cursor), size);
    for (const raw of entries) {
      cursor = raw.id;
      scanned += 1;
      const entry = parseLogEntry(raw.value);
      if (entry !== undefined && wanted(entry)) {
        matches.push({ id: raw.id, entry });
        if (matches.length >= limit) return { matches, cursor, hasMore: true };
      }
    }
    if (entries.length < size) return { matches, cursor, hasMore: false };
    if (scanned >= maxScan) return { matches, cursor, hasMore: true };
  }
}
