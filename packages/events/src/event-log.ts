/** Store I/O of the event log: appending an event, reading the head, and checking a cursor can be read from. */
import type { Store } from '@ext/core';
import { invalidCursor } from './errors.js';
import { storeCursor } from './feed.js';
import type { ResolvedOptions } from './options.js';
import { busChannel, busMessageToJson, headKey, logEntryToJson, logStream, type LogEntry } from './store-layout.js';

/** The newest cursor a publisher wrote (`""` before the first event): where a new subscription starts. */
export async function readHead(store: Store, keyPrefix: string): Promise<string> {
  const value = await store.get(headKey(keyPrefix));
  return typeof value === 'string' ? value : '';
}

/** Refuses a cursor the store cannot read from. */
export async function checkCursor(store: Store, keyPrefix: string, cursor: string): Promise<void> {
  try {
    await store.read(logStream(keyPrefix), { after: storeCursor(cursor), limit: 1 });
  } catch (error) {
    if (error instanceof RangeError) throw invalidCursor();
    throw error;
  }
}

/** Appends an event, moves the head to it and wakes every instance; returns its cursor. */
export async function appendEvent(store: Store, config: ResolvedOptions, entry: LogEntry): Promise<string> {
  const retentionMs = config.retainSeconds * 1000;
  const cursor = await store.append(logStream(config.keyPrefix), logEntryToJson(entry), {
    maxLength: config.retainEvents,
    ttlMs: retentionMs,
  });
  await store.set(headKey(config.keyPrefix), cursor, { ttlMs: retentionMs });
  await store.publish(busChannel(config.keyPrefix), busMessageToJson({ kind: 'appended', cursor }));
  return cursor;
}
