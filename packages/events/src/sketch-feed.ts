/**
 * The event log as the draft's paths read it: events in the draft's
 * `EventOccurrence` shape, the `maxAgeMs` floor, and waiting for the next
 * append (the draft's long poll).
 */
import type { Store } from '@ext/core';
import { storeCursor } from './feed.js';
import type { EventNotification } from './schema.js';
import { encodeSketchCursor, sketchEventId, type EventOccurrence } from './sketch-wire.js';
import { busChannel, headKey, parseBusMessage, parseLogEntry } from './store-layout.js';

/** The draft's form of one event at log position `position` (its `cursor`: the position after it). */
export function toOccurrence(
  notification: Pick<EventNotification, 'event' | 'timestamp' | 'payload' | 'cursor'>,
): EventOccurrence {
  return {
    eventId: sketchEventId(notification.cursor),
    name: notification.event,
    timestamp: notification.timestamp,
    data: { ...notification.payload },
    cursor: encodeSketchCursor(notification.cursor),
  };
}

/**
 * Where to start so that no event older than `floorMs` is replayed: the
 * position before the first entry after `from` that is recent enough (or
 * the end of the log), and whether anything was skipped (`truncated`).
 */
export async function skipOlderThan(
  store: Store,
  log: string,
  from: string,
  floorMs: number,
): Promise<{ readonly start: string; readonly truncated: boolean }> {
  const floor = new Date(floorMs).toISOString();
  let position = from;
  let truncated = false;
  for (;;) {
    const entries = await store.read(log, { after: storeCursor(position), limit: 500 });
    for (const raw of entries) {
      const entry = parseLogEntry(raw.value);
      if (entry !== undefined && entry.timestamp >= floor) return { start: position, truncated };
      position = raw.id;
      truncated = true;
    }
    if (entries.length < 500) return { start: position, truncated };
  }
}

/**
 * Resolves once an event is appended to the log after position `seen` (on
 * any instance), `ms` pass, or `signal` aborts.
 */
export async function waitForAppend(
  store: Store,
  prefix: string,
  seen: string,
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  let done!: () => void;
  const settled = new Promise<void>((resolve) => {
    done = resolve;
  });
  const unsubscribe = await store.subscribe(busChannel(prefix), (message) => {
    if (parseBusMessage(message)?.kind === 'appended') done();
  });
  // An append between the caller's read and this subscription moved the head already.
  const head = await store.get(headKey(prefix));
  if ((typeof head === 'string' ? head : '') !== seen) done();
  const timer = setTimeout(done, ms);
  timer.unref();
  signal.addEventListener('abort', done, { once: true });
  try {
    await settled;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', done);
    await unsubscribe();
  }
}
