/**
 * Which better-sqlite3 the store runs on (SQLITE-16), and that a process
 * using it exits cleanly: on Node >= 24.19, better-sqlite3 12 aborts a
 * process whose statements V8 collects outside JavaScript.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DRIVER,
  DRIVER_NAPI_VERSION,
  NODE20_DRIVER,
  driverCandidates,
  loadDriver,
  sqliteDriver,
  type DatabaseConstructor,
} from './driver.js';
import { childModule, removeChildModule, runNode } from './test-support/child-store.js';

const MISSING_BINARY =
  'Could not locate the bindings file. Tried:\n → build/Release/better_sqlite3.node\n → build/Debug/better_sqlite3.node';

/** A stand-in for a driver package: `opens: false` is one whose binary is missing (or fails with `error`). */
function fakeDriver(opens: boolean, error = MISSING_BINARY): DatabaseConstructor {
  function FakeDatabase(): { close: () => void } {
    if (!opens) throw new Error(error);
    return { close: () => undefined };
  }
  return FakeDatabase as unknown as DatabaseConstructor;
}

/** A `require` that serves the given drivers and records what it was asked for. */
function fakeRequire(
  drivers: Record<string, { readonly opens: boolean; readonly version: string; readonly error?: string } | undefined>,
) {
  const asked: string[] = [];
  const load = (id: string): unknown => {
    asked.push(id);
    const name = id.replace(/\/package\.json$/, '');
    const driver = drivers[name];
    if (driver === undefined)
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    return id.endsWith('/package.json') ? { version: driver.version } : fakeDriver(driver.opens, driver.error);
  };
  return { load, asked };
}

describe('the SQLite driver [SQLITE-16]', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('below Node-API 10 only better-sqlite3 12 is a candidate; from 10 on, 13 first', () => {
    expect(driverCandidates(9)).toEqual([NODE20_DRIVER]);
    expect(driverCandidates(DRIVER_NAPI_VERSION)).toEqual([DRIVER, NODE20_DRIVER]);
    expect(driverCandidates(11)).toEqual([DRIVER, NODE20_DRIVER]);
  });

  it('Node 20 loads better-sqlite3 12 and never touches 13, even when 12 does not load', () => {
    const ok = fakeRequire({
      [DRIVER]: { opens: true, version: '13.2.0' },
      [NODE20_DRIVER]: { opens: true, version: '12.11.1' },
    });
    expect(loadDriver(9, ok.load, '20.20.2')).toMatchObject({ name: NODE20_DRIVER, version: '12.11.1' });
    expect(ok.asked.some((id) => id.startsWith(`${DRIVER}/`) || id === DRIVER)).toBe(false);

    const broken = fakeRequire({
      [DRIVER]: { opens: true, version: '13.2.0' },
      [NODE20_DRIVER]: { opens: false, version: '12.11.1' },
    });
    let thrown: unknown;
    try {
      loadDriver(9, broken.load, '20.20.2');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    const error = thrown as Error;
    expect(error.message).toContain('no SQLite driver loads on Node 20.20.2 (Node-API 9)');
    expect(error.message).toContain(`Tried ${NODE20_DRIVER} (Could not locate the bindings file). This Node needs`);
    expect(error.message).toContain('onlyBuiltDependencies');
    expect(error.message).toContain('Node >= 22.14');
    expect((error.cause as Error).message).toMatch(/^Could not locate the bindings file/);
    expect(broken.asked.some((id) => id === DRIVER || id.startsWith(`${DRIVER}/`))).toBe(false);
  });

  it('from Node-API 10 on, loads better-sqlite3 13 and nothing else', () => {
    const both = fakeRequire({
      [DRIVER]: { opens: true, version: '13.2.0' },
      [NODE20_DRIVER]: { opens: true, version: '12.11.1' },
    });
    expect(loadDriver(10, both.load, '24.21.0')).toMatchObject({ name: DRIVER, version: '13.2.0' });
    expect(both.asked.filter((id) => id.startsWith(NODE20_DRIVER))).toEqual([]);
  });

  it('from Node-API 10 on, falls back to better-sqlite3 12 with a process warning when 13 has no binary here', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const fallback = fakeRequire({
      [DRIVER]: { opens: false, version: '13.2.0' },
      [NODE20_DRIVER]: { opens: true, version: '12.11.1' },
    });
    expect(loadDriver(10, fallback.load, '22.22.0')).toMatchObject({ name: NODE20_DRIVER, version: '12.11.1' });
    expect(warn).toHaveBeenCalledTimes(1);
    const [message, options] = warn.mock.calls[0] as unknown as [string, { code: string }];
    expect(message).toContain(`${DRIVER} does not load (Could not locate the bindings file)`);
    expect(message).toContain('Node >= 24.19');
    expect(options.code).toBe('EXT_STORE_SQLITE_DRIVER');
  });

  it('says what was tried, why each failed and what to install when no driver loads', () => {
    const none = fakeRequire({});
    let thrown: unknown;
    try {
      loadDriver(10, none.load, '24.21.0');
    } catch (error) {
      thrown = error;
    }
    const error = thrown as Error;
    expect(error.message).toContain('no SQLite driver loads on Node 24.21.0 (Node-API 10)');
    expect(error.message).toContain(
      `Tried ${DRIVER} (Cannot find module '${DRIVER}'); ${NODE20_DRIVER} (Cannot find module '${NODE20_DRIVER}'). The dependency`,
    );
    expect(error.message).toContain('Linux (glibc and musl), macOS and Windows');
    expect(error.cause).toBeInstanceOf(AggregateError);
    expect((error.cause as AggregateError).errors).toHaveLength(2);
  });

  it('keeps the whole of a multi-line reason, such as a binary compiled for another Node', () => {
    const stale = [
      "The module '/app/node_modules/better-sqlite3-node20/build/Release/better_sqlite3.node'",
      'was compiled against a different Node.js version using',
      'NODE_MODULE_VERSION 137. This version of Node.js requires',
      'NODE_MODULE_VERSION 115. Please try re-compiling or re-installing',
      'the module (for instance, using `npm rebuild` or `npm install`).',
    ].join('\n');
    const { load } = fakeRequire({ [NODE20_DRIVER]: { opens: false, version: '12.11.1', error: stale } });
    expect(() => loadDriver(9, load, '20.20.2')).toThrow(
      `Tried ${NODE20_DRIVER} (The module '/app/node_modules/better-sqlite3-node20/build/Release/better_sqlite3.node' was compiled against a ` +
        'different Node.js version using NODE_MODULE_VERSION 137. This version of Node.js requires NODE_MODULE_VERSION 115. Please try ' +
        're-compiling or re-installing the module (for instance, using `npm rebuild` or `npm install`)). This Node needs',
    );
  });

  it('this Node gets the driver its Node-API version calls for', () => {
    const driver = sqliteDriver();
    if (Number(process.versions.napi) >= DRIVER_NAPI_VERSION) {
      expect(driver.name).toBe(DRIVER);
      expect(driver.version).toMatch(/^13\./);
    } else {
      expect(driver.name).toBe(NODE20_DRIVER);
      expect(driver.version).toMatch(/^12\./);
    }
  });
});

// argv: module URL, database path, mode. Prints one JSON line; exits on its own (nothing keeps it alive).
const CHILD = `
const [moduleUrl, path, mode] = process.argv.slice(1);
const { createSqliteStore } = await import(moduleUrl);
const turn = () => new Promise((resolve) => setImmediate(resolve));

// Work that allocates, with turns of the event loop between, as a server does:
// V8 then collects on its own, from a task outside JavaScript, where
// better-sqlite3 12 aborts on Node >= 24.19.
async function keepWorking() {
  for (let round = 0; round < 20; round += 1) {
    let garbage = [];
    for (let i = 0; i < 20000; i += 1) garbage.push({ round, i });
    garbage = null;
    await turn();
  }
}

// Each store prepares about twenty statements; closing it drops them, with its connection.
async function openAndClose(count) {
  let read = 0;
  for (let i = 0; i < count; i += 1) {
    const store = createSqliteStore({ path, sweepIntervalMs: 0 });
    await store.set('k' + i, { i });
    if ((await store.get('k' + i)).i === i) read += 1;
    await store.close();
  }
  return read;
}

let out;
if (mode === 'use') {
  const store = createSqliteStore({ path, sweepIntervalMs: 0 });
  await store.set('k', { kept: true });
  const cursor = await store.append('log', 'entry');
  out = { value: await store.get('k'), entries: await store.read('log'), cursor };
  await store.close();
  await keepWorking();
} else if (mode === 'gc') {
  const first = await openAndClose(100);
  await keepWorking();
  const second = await openAndClose(100);
  globalThis.gc();
  await turn();
  globalThis.gc();
  out = { read: first + second };
}
process.stdout.write(JSON.stringify(out));
`;

describe('a process using the store exits cleanly [SQLITE-16]', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-sqlite-driver-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    await removeChildModule();
  });

  it('opens, writes, reads, closes and exits with code 0 and nothing on stderr', async () => {
    const result = await runNode(CHILD, [await childModule(), join(dir, 'state.db'), 'use']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { cursor: string };
    expect(out).toEqual({ value: { kept: true }, entries: [{ id: out.cursor, value: 'entry' }], cursor: out.cursor });
  });

  it('drops thousands of prepared statements and connections, forces a GC (--expose-gc) and exits with code 0 and nothing on stderr', async () => {
    const result = await runNode(CHILD, [await childModule(), join(dir, 'state.db'), 'gc'], undefined, ['--expose-gc']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ read: 200 });
  });
});
