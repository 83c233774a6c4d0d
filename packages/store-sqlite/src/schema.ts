/** The database's tables: the schema version, the migrations that build it, and every statement the store runs. */
import type Database from 'better-sqlite3';

/** The schema this version writes; a file from a newer version is refused rather than misread. */
export const SCHEMA_VERSION = 1;

export interface ValueRow {
  readonly value: string;
  readonly expires_at: number | null;
}

interface EntryRow {
  readonly id: number;
  readonly value: string;
}

interface MessageRow {
  readonly id: number;
  readonly channel: string;
  readonly message: string;
}

// Each step takes the file from version N to N + 1; index 0 creates version 1.
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE store_kv (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    expires_at INTEGER
  );
  CREATE INDEX store_kv_expiry ON store_kv (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE store_streams (
    name TEXT PRIMARY KEY NOT NULL,
    expires_at INTEGER
  );
  CREATE TABLE store_stream_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    stream TEXT NOT NULL,
    value TEXT NOT NULL
  );
  CREATE INDEX store_stream_entries_by_stream ON store_stream_entries (stream, id);
  CREATE TABLE store_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
];

/**
 * Brings the file to {@link SCHEMA_VERSION}, or throws when it was written
 * by a newer version of this package.
 */
export function migrate(db: Database.Database): void {
  const run = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS store_schema (version INTEGER NOT NULL)');
    const row = db.prepare<[], { version: number }>('SELECT version FROM store_schema').get();
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `SqliteStore: the database uses schema version ${current}, newer than this package supports (${SCHEMA_VERSION}); upgrade @ext/store-sqlite`,
      );
    }
    for (const migration of MIGRATIONS.slice(current)) db.exec(migration);
    if (row === undefined) db.prepare('INSERT INTO store_schema (version) VALUES (?)').run(SCHEMA_VERSION);
    else if (current !== SCHEMA_VERSION) db.prepare('UPDATE store_schema SET version = ?').run(SCHEMA_VERSION);
  });
  // IMMEDIATE takes the write lock first, so two processes opening a new file cannot both create the schema.
  run.immediate();
}

/** Every statement the store runs. */
export interface Statements {
  readonly get: Database.Statement<[string, number], ValueRow>;
  readonly put: Database.Statement<[string, string, number | null]>;
  readonly deleteKey: Database.Statement<[string]>;
  readonly streamAlive: Database.Statement<[string, number], { readonly name: string }>;
  readonly putStream: Database.Statement<[string, number | null]>;
  readonly deleteStream: Database.Statement<[string]>;
  readonly deleteEntries: Database.Statement<[string]>;
  readonly addEntry: Database.Statement<[string, string]>;
  readonly trimEntries: Database.Statement<[string, string, number]>;
  readonly readEntries: Database.Statement<[string, number, number], EntryRow>;
  readonly sweepKeys: Database.Statement<[number]>;
  readonly sweepEntries: Database.Statement<[number]>;
  readonly sweepStreams: Database.Statement<[number]>;
  readonly addMessage: Database.Statement<[string, string, number]>;
  readonly lastMessage: Database.Statement<[], { readonly id: number | null }>;
  readonly messagesAfter: Database.Statement<[number], MessageRow>;
  readonly sweepMessages: Database.Statement<[number]>;
  readonly schemaVersion: Database.Statement<[], { readonly version: number }>;
}

/** Every statement the store runs, prepared once per connection. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    get: db.prepare('SELECT value, expires_at FROM store_kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)'),
    put: db.prepare('INSERT OR REPLACE INTO store_kv (key, value, expires_at) VALUES (?, ?, ?)'),
    deleteKey: db.prepare('DELETE FROM store_kv WHERE key = ?'),
    streamAlive: db.prepare('SELECT name FROM store_streams WHERE name = ? AND (expires_at IS NULL OR expires_at > ?)'),
    putStream: db.prepare('INSERT OR REPLACE INTO store_streams (name, expires_at) VALUES (?, ?)'),
    deleteStream: db.prepare('DELETE FROM store_streams WHERE name = ?'),
    deleteEntries: db.prepare('DELETE FROM store_stream_entries WHERE stream = ?'),
    addEntry: db.prepare('INSERT INTO store_stream_entries (stream, value) VALUES (?, ?)'),
    // Deletes everything older than the newest `maxLength` entries.
    trimEntries: db.prepare(
      `DELETE FROM store_stream_entries WHERE stream = ? AND id <= (
         SELECT id FROM store_stream_entries WHERE stream = ? ORDER BY id DESC LIMIT 1 OFFSET ?
       )`,
    ),
    readEntries: db.prepare(
      'SELECT id, value FROM store_stream_entries WHERE stream = ? AND id > ? ORDER BY id LIMIT ?',
    ),
    sweepKeys: db.prepare('DELETE FROM store_kv WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    sweepEntries: db.prepare(
      'DELETE FROM store_stream_entries WHERE stream IN (SELECT name FROM store_streams WHERE expires_at IS NOT NULL AND expires_at <= ?)',
    ),
    sweepStreams: db.prepare('DELETE FROM store_streams WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    addMessage: db.prepare('INSERT INTO store_messages (channel, message, created_at) VALUES (?, ?, ?)'),
    lastMessage: db.prepare('SELECT MAX(id) AS id FROM store_messages'),
    messagesAfter: db.prepare('SELECT id, channel, message FROM store_messages WHERE id > ? ORDER BY id LIMIT 1000'),
    sweepMessages: db.prepare('DELETE FROM store_messages WHERE created_at <= ?'),
    schemaVersion: db.prepare('SELECT version FROM store_schema'),
  };
}
