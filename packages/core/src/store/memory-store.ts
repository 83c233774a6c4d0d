/** `MemoryStore`: the `Store` that keeps everything in the process, for tests and one-instance servers. */
import { jsonEqual, type JsonValue } from '../kit/canonical.js';
import type { AppendOptions, ReadOptions, SetOptions, Store, StreamEntry, Unsubscribe } from './store.js';

// Values are kept serialized, so callers can never mutate stored state and
// each write and read costs one JSON pass; the parsed value a
// compare-and-set needs is made once, on the first comparison, and never
// leaves the store.
interface Slot {
  readonly json: string;
  parsed?: JsonValue;
  readonly expiresAt: number | undefined;
}

function slotOf(value: JsonValue, expiresAt: number | undefined): Slot {
  return { json: JSON.stringify(value), expiresAt };
}

function holds(slot: Slot, expected: JsonValue): boolean {
  slot.parsed ??= JSON.parse(slot.json) as JsonValue;
  return jsonEqual(slot.parsed, expected);
}

interface Stream {
  entries: StreamEntry[];
  seq: number;
  expiresAt: number | undefined;
}

export interface MemoryStoreOptions {
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

function expiry(now: number, options: SetOptions | undefined): number | undefined {
  const ttl = options?.ttlMs;
  if (ttl === undefined) return undefined;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new RangeError('ttlMs must be a positive number');
  return now + ttl;
}

// Stream entries and published messages are copied for the same reason.
function copy(value: JsonValue): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

// Runs synchronously (so each operation stays atomic) but reports a throw as
// a rejected promise, as an I/O-backed store would.
function settle<T>(operation: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(operation());
  });
}

// A call's argument, refused with a `RangeError` as every store refuses one (not the kit's
// `positiveIntegerOption`, whose `ConfigurationError` is for a factory's options).
function positiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}

/** The entry under `key` unless it has expired (`now()` is asked only then); an expired one is dropped as it is found. */
function unexpired<T extends { readonly expiresAt: number | undefined }>(
  map: Map<string, T>,
  key: string,
  now: () => number,
): T | undefined {
  const entry = map.get(key);
  if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
    map.delete(key);
    return undefined;
  }
  return entry;
}

/** How many entries each write looks at for expiry: more than one, so sweeping outpaces growth. */
const SWEEP_PER_WRITE = 2;

/**
 * Drops expired entries nobody reads again (an idempotency key used once,
 * say), which lazy expiry on read would keep for good: each write looks at a
 * few entries in insertion order, resuming where the last one stopped, so
 * every entry is looked at again within a bounded number of writes.
 */
class Sweeper<T extends { readonly expiresAt: number | undefined }> {
  readonly #map: Map<string, T>;
  #cursor: Iterator<[string, T]> | undefined;

  constructor(map: Map<string, T>) {
    this.#map = map;
  }

  step(now: number): void {
    for (let looked = 0; looked < SWEEP_PER_WRITE; looked++) {
      this.#cursor ??= this.#map.entries();
      const next = this.#cursor.next();
      if (next.done === true) {
        this.#cursor = undefined;
        return;
      }
      const [key, entry] = next.value;
      // Deleting the entry a Map iterator is on is safe; the iterator goes on with the next.
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.#map.delete(key);
    }
  }
}

/** A single-process store for tests and one-instance servers; state is lost on exit. */
export class MemoryStore implements Store {
  readonly #slots = new Map<string, Slot>();
  readonly #streams = new Map<string, Stream>();
  readonly #channels = new Map<string, Set<(message: JsonValue) => void>>();
  readonly #slotSweeper = new Sweeper(this.#slots);
  readonly #streamSweeper = new Sweeper(this.#streams);
  readonly #now: () => number;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  #live(key: string): Slot | undefined {
    this.#assertOpen();
    return unexpired(this.#slots, key, () => this.#now());
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('MemoryStore is closed');
  }

  /** Values and streams held, expired ones not yet dropped included: for monitoring and tests. */
  get size(): number {
    return this.#slots.size + this.#streams.size;
  }

  #write(key: string, slot: Slot): void {
    this.#slots.set(key, slot);
    this.#slotSweeper.step(this.#now());
  }

  get(key: string): Promise<JsonValue | undefined> {
    return settle(() => {
      const slot = this.#live(key);
      return slot ? (JSON.parse(slot.json) as JsonValue) : undefined;
    });
  }

  set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    return settle(() => {
      this.#assertOpen();
      this.#write(key, slotOf(value, expiry(this.#now(), options)));
    });
  }

  setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    return settle(() => {
      const expiresAt = expiry(this.#now(), options);
      if (this.#live(key)) return false;
      this.#write(key, slotOf(value, expiresAt));
      return true;
    });
  }

  compareAndSet(key: string, expected: JsonValue | undefined, next: JsonValue, options?: SetOptions): Promise<boolean> {
    return settle(() => {
      const expiresAt = expiry(this.#now(), options);
      const slot = this.#live(key);
      const matches = expected === undefined ? slot === undefined : slot !== undefined && holds(slot, expected);
      if (!matches) return false;
      this.#write(key, slotOf(next, expiresAt));
      return true;
    });
  }

  /** Removes the value and the stream stored under `key`. */
  delete(key: string): Promise<boolean> {
    return settle(() => {
      const existed = this.#live(key) !== undefined || this.#stream(key) !== undefined;
      this.#slots.delete(key);
      this.#streams.delete(key);
      return existed;
    });
  }

  increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    return settle(() => {
      if (!Number.isSafeInteger(by)) throw new RangeError('increment: by must be a safe integer');
      const expiresAt = expiry(this.#now(), options);
      const slot = this.#live(key);
      const current: unknown = slot === undefined ? 0 : JSON.parse(slot.json);
      if (typeof current !== 'number') {
        throw new TypeError(`increment: value at "${key}" is not a number`);
      }
      const value = current + by;
      this.#write(key, slotOf(value, slot ? slot.expiresAt : expiresAt));
      return value;
    });
  }

  #stream(name: string): Stream | undefined {
    this.#assertOpen();
    return unexpired(this.#streams, name, () => this.#now());
  }

  append(streamName: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    return settle(() => {
      positiveInteger('maxLength', options?.maxLength);
      const expiresAt = expiry(this.#now(), options);
      let stream = this.#stream(streamName);
      if (!stream) {
        stream = { entries: [], seq: 0, expiresAt: undefined };
        this.#streams.set(streamName, stream);
      }
      stream.seq += 1;
      const id = String(stream.seq).padStart(16, '0');
      stream.entries.push({ id, value: copy(value) });
      if (options?.maxLength !== undefined && stream.entries.length > options.maxLength) {
        stream.entries.splice(0, stream.entries.length - options.maxLength);
      }
      stream.expiresAt = expiresAt;
      this.#streamSweeper.step(this.#now());
      return id;
    });
  }

  read(streamName: string, options?: ReadOptions): Promise<StreamEntry[]> {
    return settle(() => {
      positiveInteger('limit', options?.limit);
      const stream = this.#stream(streamName);
      if (!stream) return [];
      const limit = options?.limit ?? 100;
      const after = options?.after;
      const entries = stream.entries.filter((entry) => after === undefined || entry.id > after).slice(0, limit);
      return entries.map((entry) => ({ id: entry.id, value: copy(entry.value) }));
    });
  }

  publish(channel: string, message: JsonValue): Promise<void> {
    return settle(() => {
      this.#assertOpen();
      for (const listener of this.#channels.get(channel) ?? []) {
        const delivered = copy(message);
        queueMicrotask(() => {
          listener(delivered);
        });
      }
    });
  }

  subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe> {
    return settle(() => {
      this.#assertOpen();
      let listeners = this.#channels.get(channel);
      if (!listeners) {
        listeners = new Set();
        this.#channels.set(channel, listeners);
      }
      // A fresh wrapper per call, so subscribing the same function twice gives two independent subscriptions.
      const wrapped = (message: JsonValue): void => {
        listener(message);
      };
      listeners.add(wrapped);
      return (): Promise<void> => {
        const current = this.#channels.get(channel);
        current?.delete(wrapped);
        // Per-key channels (a waiter on one idempotency key, say) would otherwise pile up empty.
        if (current?.size === 0) this.#channels.delete(channel);
        return Promise.resolve();
      };
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    return Promise.resolve();
  }
}
