export { SCHEMA_VERSION, SqliteStore, createSqliteStore } from './sqlite-store.js';
export type { SqliteStoreOptions } from './sqlite-store.js';
