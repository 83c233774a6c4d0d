/**
 * Which better-sqlite3 this process runs on (SPEC.md SQLITE-16).
 *
 * better-sqlite3 before 13 derives its `Statement` and `Database` from
 * `node::ObjectWrap`, whose destructor calls `RemoveEnvironmentCleanupHook`
 * since Node 24.19: a statement or connection collected by a garbage
 * collection that runs outside JavaScript (one V8 starts on its own, or one at
 * exit) aborts the process (`Assertion failed: (env) != nullptr`).
 * better-sqlite3 13 is a Node-API addon without that problem, but its
 * binaries need Node-API 10 (Node >= 22.14, or 23.6), and on an older Node
 * they crash the process when they open a database: a segfault, which no
 * `try` can catch. So the package depends on both, 13 as `better-sqlite3` and
 * 12 under the alias `better-sqlite3-node20` (an optional dependency), and
 * loads one of them here by the Node-API version of the running Node.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The constructor both majors export (one API; `@types/better-sqlite3` describes it). */
export type DatabaseConstructor = typeof BetterSqlite3;

/** better-sqlite3 13: Node-API, prebuilt binaries for Node >= 22.14. */
export const DRIVER = 'better-sqlite3';
/** better-sqlite3 12 under an npm alias: a binary compiled for one Node; for Node 20 and Node 22 before 22.14. */
export const NODE20_DRIVER = 'better-sqlite3-node20';
/** The Node-API version better-sqlite3 13 needs. */
export const DRIVER_NAPI_VERSION = 10;

export interface SqliteDriver {
  /** The name it was loaded by: `better-sqlite3` (13) or `better-sqlite3-node20` (12). */
  readonly name: string;
  /** Its version, from its package.json. */
  readonly version: string;
  readonly Database: DatabaseConstructor;
}

/** The packages to try, in order, on a Node with this Node-API version. */
export function driverCandidates(napiVersion: number): readonly string[] {
  // 13 below Node-API 10 crashes the process instead of throwing: never tried there.
  return napiVersion >= DRIVER_NAPI_VERSION ? [DRIVER, NODE20_DRIVER] : [NODE20_DRIVER];
}

const requireHere = createRequire(import.meta.url);

/**
 * An error's message on one line, up to the list it may end with (the paths
 * `bindings` tried, a require stack), without the final full stop.
 */
function reason(error: unknown): string {
  const kept: string[] = [];
  for (const line of (error instanceof Error ? error.message : String(error)).split('\n')) {
    if (/^\s*(?:→|- )/.test(line)) break;
    if (/:\s*$/.test(line)) {
      // "Could not locate the bindings file. Tried:" keeps its first sentence; "Require stack:" nothing.
      kept.push(line.replace(/(?:^|(?<=\.))[^.]*:\s*$/, ''));
      break;
    }
    kept.push(line);
  }
  return kept
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/[.\s]+$/, '');
}

/** Loads `name` and opens (and closes) an in-memory database with it: requiring alone does not load the binary. */
function tryDriver(name: string, load: (id: string) => unknown): SqliteDriver {
  const Database = load(name) as DatabaseConstructor;
  const { version } = load(`${name}/package.json`) as { version: string };
  new Database(':memory:').close();
  return { name, version, Database };
}

/**
 * The driver for a Node with Node-API version `napiVersion`: better-sqlite3
 * 13 from Node-API 10 on, else 12. Where 13 is a candidate but does not load
 * (a platform it has no binary for), 12 is used, with a process warning: on
 * Node >= 24.19 it can abort the process. Throws an error naming each package
 * tried, why it failed and what to do when none loads.
 */
export function loadDriver(
  napiVersion: number = Number(process.versions.napi),
  load: (id: string) => unknown = requireHere,
  nodeVersion: string = process.versions.node,
): SqliteDriver {
  const failures: { readonly name: string; readonly error: unknown }[] = [];
  for (const name of driverCandidates(napiVersion)) {
    let driver: SqliteDriver;
    try {
      driver = tryDriver(name, load);
    } catch (error) {
      failures.push({ name, error });
      continue;
    }
    if (failures.length > 0) {
      process.emitWarning(
        `@ext/store-sqlite: ${failures.map((failure) => `${failure.name} does not load (${reason(failure.error)})`).join('; ')}; ` +
          `using ${name} ${driver.version}, which can abort the process when it garbage-collects a statement on Node >= 24.19`,
        { code: 'EXT_STORE_SQLITE_DRIVER' },
      );
    }
    return driver;
  }
  const tried = failures.map((failure) => `${failure.name} (${reason(failure.error)})`).join('; ');
  const hint =
    napiVersion >= DRIVER_NAPI_VERSION
      ? `The dependency ${DRIVER} (version 13) has binaries for Linux (glibc and musl), macOS and Windows on x64 and arm64; ` +
        `on another platform, install the optional dependency ${NODE20_DRIVER} (better-sqlite3 12) with its build script allowed and a C++ toolchain`
      : `This Node needs better-sqlite3 12, the optional dependency ${NODE20_DRIVER}, compiled for it: install it without omitting optional ` +
        'dependencies, with its build script allowed (pnpm: onlyBuiltDependencies: [better-sqlite3]) and python3, make and a C++ compiler; ' +
        `or use Node >= 22.14, which runs the prebuilt ${DRIVER} 13 with no build`;
  const cause =
    failures.length === 1 ? failures[0]?.error : new AggregateError(failures.map((failure) => failure.error));
  throw new Error(
    `@ext/store-sqlite: no SQLite driver loads on Node ${nodeVersion} (Node-API ${napiVersion}). Tried ${tried}. ${hint}.`,
    { cause },
  );
}

let loaded: SqliteDriver | undefined;

/** The driver of this process, loaded on first use (a failure is not remembered: the next call tries again). */
export function sqliteDriver(): SqliteDriver {
  loaded ??= loadDriver();
  return loaded;
}

/** Opens a connection with this process's driver. */
export function openDatabase(path: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const { Database } = sqliteDriver();
  return new Database(path, options);
}
