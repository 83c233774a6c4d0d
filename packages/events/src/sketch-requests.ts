/**
 * What the official Events draft's methods check of a request before they
 * serve it: its parameters, the event type and arguments it names, and the
 * log position its cursor (and `maxAgeMs`) puts replay at. Every refusal is
 * the draft's error (`sketch-errors.ts`).
 */
import type { Store } from '@ext/core';
import { checkCursor, readHead } from './event-log.js';
import { checkSubscription, type RequestFailure } from './requests.js';
import type { EventsRuntime } from './runtime.js';
import { sketchInvalid, unknownEvent } from './sketch-errors.js';
import { skipOlderThan } from './sketch-feed.js';
import { decodeSketchCursor } from './sketch-wire.js';
import { logStream } from './store-layout.js';

/** Where a request's replay begins: `fromNow` when it named no cursor. */
export interface RequestStart {
  readonly position: string;
  readonly fromNow: boolean;
}

/** The parsed parameters, or the draft's invalid-params error. */
export function parsed<T>(result: { ok: true; value: T } | { ok: false; failure: RequestFailure }): T {
  if (!result.ok) throw sketchInvalid(result.failure);
  return result.value;
}

export function invalidCursor(): RequestFailure {
  return {
    code: 'INVALID_INPUT',
    field: 'cursor',
    pointer: '/cursor',
    message: 'Invalid cursor: pass a cursor this server returned, or null to start from now',
  };
}

/** The event type and arguments checked against the catalog: unknown name → NotFound, bad arguments → -32602. */
export function checkTarget(rt: EventsRuntime, name: string, args: Readonly<Record<string, unknown>>): void {
  if (!rt.catalog.has(name)) throw unknownEvent(name, rt.supported);
  const failure = checkSubscription([name], args, rt.catalog);
  if (failure === undefined) return;
  // Our filter is the draft's `arguments`.
  const pointer = failure.pointer.replace(/^\/filter/, '/arguments');
  throw sketchInvalid({ ...failure, field: 'arguments', pointer });
}

/** The log position a request's cursor names (`null`/absent: the head, i.e. now); refuses a cursor not minted here. */
export async function startOf(
  rt: EventsRuntime,
  store: Store,
  cursor: string | null | undefined,
): Promise<RequestStart> {
  if (cursor === null || cursor === undefined) {
    return { position: await readHead(store, rt.config.keyPrefix), fromNow: true };
  }
  const position = decodeSketchCursor(cursor);
  if (position === undefined) throw sketchInvalid(invalidCursor());
  try {
    await checkCursor(store, rt.config.keyPrefix, position);
  } catch {
    throw sketchInvalid(invalidCursor());
  }
  return { position, fromNow: false };
}

/** Where replay begins once the `maxAgeMs` floor is applied (ignored for "now", as the draft says). */
export async function floored(
  rt: EventsRuntime,
  store: Store,
  start: RequestStart,
  maxAgeMs: number | undefined,
): Promise<{ readonly start: string; readonly truncated: boolean }> {
  if (maxAgeMs === undefined || start.fromNow) return { start: start.position, truncated: false };
  return skipOlderThan(store, logStream(rt.config.keyPrefix), start.position, rt.config.now() - maxAgeMs);
}
