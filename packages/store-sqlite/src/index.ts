/** `@ext/store-sqlite`: a durable `Store` on one SQLite file. */
export { SqliteStore, createSqliteStore } from './sqlite-store.js';
export { SCHEMA_VERSION } from './schema.js';
export type { SqliteStoreOptions } from './options.js';
