/**
 * The transaction log in a store: where records and the sweeper's index
 * live, reading a record back, and applying a transition with compare-and-set.
 */
import { ExtensionError, type Store } from '@ext/core';
import { isRecord, type JsonValue } from '@ext/core/kit';
import { isTerminal, type TransactionRecord } from './record.js';

/** Where the transaction log lives in a store; every key starts with `prefix`. */
export interface LogKeys {
  readonly prefix: string;
}

// Principals are caller-chosen strings: encoded so a ":" in one cannot reach another's keys.
export function recordKey(keys: LogKeys, principal: string, transactionId: string): string {
  return `${keys.prefix}:${encodeURIComponent(principal)}:tx:${transactionId}`;
}

export function indexStream(keys: LogKeys): string {
  return `${keys.prefix}:index`;
}

export function indexLowKey(keys: LogKeys): string {
  return `${keys.prefix}:index:low`;
}

/** One entry of the index stream the sweeper walks: who began which transaction. */
export interface IndexEntry {
  readonly principal: string;
  readonly transactionId: string;
}

export function readIndexEntry(value: JsonValue): IndexEntry | undefined {
  if (!isRecord(value)) return undefined;
  const { p, t } = value;
  return typeof p === 'string' && typeof t === 'string' ? { principal: p, transactionId: t } : undefined;
}

export function indexEntryValue(entry: IndexEntry): JsonValue {
  return { p: entry.principal, t: entry.transactionId };
}

function corrupt(key: string): ExtensionError {
  return new ExtensionError('permanent', 'TRANSACTION_LOG_CORRUPT', 'The stored transaction record is unreadable', {
    details: { key_suffix: key.slice(key.lastIndexOf(':') + 1) },
  });
}

/** Reads a stored record; the shape check keeps a damaged entry from being acted on. */
export function parseRecord(key: string, value: JsonValue | undefined): TransactionRecord | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw corrupt(key);
  if (
    value.v !== 1 ||
    typeof value.transaction_id !== 'string' ||
    typeof value.status !== 'string' ||
    !Array.isArray(value.steps)
  ) {
    throw corrupt(key);
  }
  return value as unknown as TransactionRecord;
}

export function toJson(record: TransactionRecord): JsonValue {
  // Records hold only JSON: strings, numbers, plain objects and the JSON tool payloads.
  return JSON.parse(JSON.stringify(record)) as JsonValue;
}

const MAX_ATTEMPTS = 64;

/**
 * Applies a pure transition with compare-and-set until it lands. `apply`
 * may throw (a refusal) or return `undefined` for "no change".
 */
export async function updateRecord<T>(
  store: Store,
  key: string,
  retentionMs: number,
  apply: (record: TransactionRecord) => { record: TransactionRecord; value: T } | undefined,
  missing: () => Error,
): Promise<{ record: TransactionRecord; value: T | undefined; changed: boolean }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const raw = await store.get(key);
    const current = parseRecord(key, raw);
    if (!current) throw missing();
    const outcome = apply(current);
    if (!outcome) return { record: current, value: undefined, changed: false };
    if (outcome.record === current) return { record: current, value: outcome.value, changed: false };
    const options = isTerminal(outcome.record) ? { ttlMs: retentionMs } : undefined;
    if (await store.compareAndSet(key, raw, toJson(outcome.record), options)) {
      return { record: outcome.record, value: outcome.value, changed: true };
    }
    // Lost a race with another writer: back off a little so the winner finishes.
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, attempt * 2)));
  }
  throw new ExtensionError(
    'transient',
    'TRANSACTION_CONFLICT',
    'The transaction is being changed concurrently; try again',
    {
      retryAfterSeconds: 1,
    },
  );
}
