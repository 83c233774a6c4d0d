/** The `Store` interface every extension keeps its state through, and the options of its operations. */
import type { JsonValue } from '../kit/canonical.js';

export interface SetOptions {
  /** Time to live in milliseconds; absent = no expiry. */
  readonly ttlMs?: number | undefined;
}

export interface StreamEntry {
  /** Cursor of this entry: opaque, increasing within one stream. */
  readonly id: string;
  readonly value: JsonValue;
}

export interface ReadOptions {
  /** Return entries strictly after this cursor; absent = from the start. */
  readonly after?: string | undefined;
  /** At most this many entries (default 100). */
  readonly limit?: number | undefined;
}

export interface AppendOptions {
  /** Keep at most this many entries in the stream (oldest trimmed first). */
  readonly maxLength?: number | undefined;
  /** Expire the whole stream this long after the last append. */
  readonly ttlMs?: number | undefined;
}

export type Unsubscribe = () => Promise<void>;

/** What a store says about itself, for readiness checks. */
export interface StoreHealth {
  /** `true` when the store serves reads and writes now. */
  readonly ok: boolean;
  /** Why not, or what it runs on (e.g. the file, the server). */
  readonly detail?: string | undefined;
}

/**
 * The one place every extension keeps state (docs/ARCHITECTURE.md, 'State and the Store'). Keys are
 * strings namespaced by the caller (`<extension>:<principal>:...`); values
 * are JSON. Every operation is atomic on its own. Implementations: memory
 * (here), SQLite, Redis; all pass `runStoreContract` from `@ext/core/testing`.
 */
export interface Store {
  get(key: string): Promise<JsonValue | undefined>;
  set(key: string, value: JsonValue, options?: SetOptions): Promise<void>;
  /** Stores only when the key is absent (or expired); `true` when stored. */
  setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean>;
  /**
   * Replaces the value only when the current one equals `expected`
   * (canonical JSON equality; `undefined` = absent); `true` when replaced.
   */
  compareAndSet(key: string, expected: JsonValue | undefined, next: JsonValue, options?: SetOptions): Promise<boolean>;
  /** `true` when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Adds `by` (default 1) to an integer counter, creating it at 0; returns
   * the new value. `ttlMs` applies when the counter is created.
   */
  increment(key: string, by?: number, options?: SetOptions): Promise<number>;
  /** Appends to an ordered stream; returns the new entry's cursor. */
  append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string>;
  read(stream: string, options?: ReadOptions): Promise<StreamEntry[]>;
  publish(channel: string, message: JsonValue): Promise<void>;
  /** Listens on a channel; resolves once the subscription is active. */
  subscribe(channel: string, listener: (message: JsonValue) => void): Promise<Unsubscribe>;
  /** Whether the store can serve now (a readiness probe); a store that cannot tell leaves it out. */
  health?(): Promise<StoreHealth>;
  close(): Promise<void>;
}
