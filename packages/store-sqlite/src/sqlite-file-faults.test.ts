/**
 * The file under a running store deleted, replaced, made read-only or full:
 * against real files, with real SQLite. The invariant every case checks is
 * that a write the store acknowledged is still there after a restart, and
 * that a write it cannot keep is refused loudly (StoreUnavailableError) and
 * logged once.
 */
import { chown, copyFile, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Logger } from '@ext/core';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from './index.js';
import { childModule, childModuleReadableBy, removeChildModule, runNode } from './test-support/child-store.js';

interface Logged {
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
}

function outageLines(lines: readonly Logged[]): string[] {
  return lines.map((line) => line.message).filter((message) => /store (unavailable|available again)/.test(message));
}

/** Writes `count` keys; returns the ones the store acknowledged and the errors of the others. */
async function tryWrites(
  store: SqliteStore,
  prefix: string,
  count: number,
  padding = '',
): Promise<{ acknowledged: string[]; errors: unknown[] }> {
  const acknowledged: string[] = [];
  const errors: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const key = `${prefix}${index}`;
    try {
      await store.set(key, { index, padding });
      acknowledged.push(key);
    } catch (error) {
      errors.push(error);
    }
  }
  return { acknowledged, errors };
}

function expectOutage(errors: readonly unknown[], reason: string, retryAfterSeconds: number): void {
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) {
    if (!StoreUnavailableError.isInstance(error))
      throw new Error(`expected StoreUnavailableError, got ${String(error)}`);
    expect(error.reason).toBe(reason);
    expect(error.toStructured()).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      category: 'transient',
      retry_after_seconds: retryAfterSeconds,
    });
  }
}

afterAll(async () => {
  await removeChildModule();
});

describe('SqliteStore when its file changes under it', () => {
  let dir: string;
  let path: string;
  let lines: Logged[];
  const open: SqliteStore[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-sqlite-faults-'));
    path = join(dir, 'state.db');
    lines = [];
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  function openStore(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    const logger: Logger = { warn: (message, details) => lines.push({ message, details }) };
    const store = createSqliteStore({ path, logger, sweepIntervalMs: 0, ...options });
    open.push(store);
    return store;
  }

  /** Closes `store` and opens the same path again, as a restarted server would. */
  async function restart(store: SqliteStore): Promise<SqliteStore> {
    await store.close();
    return openStore();
  }

  async function expectDurable(store: SqliteStore, keys: readonly string[]): Promise<void> {
    const reopened = await restart(store);
    for (const key of keys)
      expect({ key, value: await reopened.get(key) }).toEqual({ key, value: expect.anything() as unknown });
  }

  it.each([
    ['the database file', ['']],
    ['the database file and its -wal and -shm files', ['', '-wal', '-shm']],
    ['the write-ahead log (-wal) alone', ['-wal']],
  ])(
    'SQLITE-12: %s deleted under a running store: every later write is refused, logged once, and nothing acknowledged is lost at restart',
    async (_what, suffixes) => {
      const store = openStore();
      await store.set('before', true);
      for (const suffix of suffixes) await rm(`${path}${suffix}`);
      const { acknowledged, errors } = await tryWrites(store, 'after-', 5);
      expect(acknowledged).toEqual([]);
      expectOutage(errors, 'file_deleted', 30);
      await expect(store.increment('n')).rejects.toSatisfy((error) => StoreUnavailableError.isInstance(error));
      expect(outageLines(lines)).toEqual(['SqliteStore: store unavailable']);
      expect(await store.health()).toMatchObject({ ok: false, detail: expect.stringMatching(/deleted/) as string });
      await expectDurable(store, acknowledged);
    },
  );

  it('SQLITE-12: the file replaced by another one (a restore, a copy over it): writes are refused as file_replaced', async () => {
    const other = join(dir, 'other.db');
    const store = openStore();
    await store.set('mine', 1);
    const replacement = createSqliteStore({ path: other, sweepIntervalMs: 0 });
    await replacement.set('theirs', 1);
    await replacement.close();
    await rename(other, path);
    const { acknowledged, errors } = await tryWrites(store, 'after-', 5);
    expectOutage(errors, 'file_replaced', 30);
    expect(outageLines(lines)).toEqual(['SqliteStore: store unavailable']);
    await expectDurable(store, acknowledged);
  });

  it('SQLITE-12: a copy of the file put back in place is still another file', async () => {
    const store = openStore();
    await store.set('k', 1);
    await copyFile(path, `${path}.copy`);
    await rename(`${path}.copy`, path);
    expectOutage((await tryWrites(store, 'after-', 1)).errors, 'file_replaced', 30);
  });

  it('SQLITE-14: full (maxSizeBytes reached): writes are refused as full, logged once; once space is freed they succeed again', async () => {
    const store = openStore({ maxSizeBytes: 96 * 1024 });
    const { acknowledged, errors } = await tryWrites(store, 'fill-', 300, 'x'.repeat(1000));
    expect(acknowledged.length).toBeGreaterThan(0);
    expectOutage(errors, 'full', 5);
    expect(outageLines(lines)).toEqual(['SqliteStore: store unavailable']);
    expect(await store.health()).toMatchObject({ ok: false, detail: expect.stringMatching(/full/) as string });
    for (const key of acknowledged.slice(0, 40)) await store.delete(key);
    await store.set('fits again', 'x'.repeat(100));
    expect(outageLines(lines)).toEqual(['SqliteStore: store unavailable', 'SqliteStore: store available again']);
    expect(await store.health()).toMatchObject({ ok: true });
    await expectDurable(store, [...acknowledged.slice(40), 'fits again']);
  });

  it('SQLITE-15: health() is ok on a healthy file and names no path', async () => {
    const store = openStore();
    const health = await store.health();
    expect(health).toMatchObject({ ok: true });
    expect(JSON.stringify(health)).not.toContain(dir);
    await store.close();
    expect(await store.health()).toMatchObject({ ok: false });
  });

  it('validates maxSizeBytes, naming it', () => {
    expect(() => createSqliteStore({ path: ':memory:', maxSizeBytes: 0 })).toThrow(/maxSizeBytes/);
    expect(() => createSqliteStore({ path: ':memory:', maxSizeBytes: Number.NaN })).toThrow(/maxSizeBytes/);
  });
});

// Made read-only by chmod: root writes through any permission bits, so as root
// the store runs in a child process as `nobody`, where they apply.
const READ_ONLY_CHILD = `
const [moduleUrl, path] = process.argv.slice(1);
const { chmodSync } = await import('node:fs');
const { createSqliteStore } = await import(moduleUrl);
const lines = [];
const logger = { warn: (message) => lines.push(message) };
const attempt = (promise) => promise.then(() => 'ok', (error) => error.reason ?? String(error));
let store = createSqliteStore({ path, logger, sweepIntervalMs: 0 });
await store.set('before', 1);
chmodSync(path, 0o444);
const whileReadOnly = [await attempt(store.set('during', 1)), await attempt(store.set('during-2', 1))];
const health = await store.health();
chmodSync(path, 0o644);
const afterwards = await attempt(store.set('after', 1));
await store.close();
store = createSqliteStore({ path, sweepIntervalMs: 0 });
const kept = { before: await store.get('before'), during: await store.get('during'), after: await store.get('after') };
await store.close();
process.stdout.write(JSON.stringify({ whileReadOnly, health, afterwards, kept, lines }));
`;

const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;

describe('SqliteStore when its file is made read-only', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-sqlite-readonly-'));
    if (asRoot) await chown(dir, NOBODY.uid, NOBODY.gid);
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(`SQLITE-13: writes are refused as read_only and logged once, and succeed again once it is writable (run as ${asRoot ? 'nobody: the tests run as root' : 'the current user'})`, async (ctx) => {
    // nobody cannot enter a checkout below a directory only its owner may enter: nothing to learn there.
    if (asRoot && !(await childModuleReadableBy(NOBODY))) {
      ctx.skip('the checkout is not readable by nobody (a parent directory is private)');
    }
    const result = await runNode(
      READ_ONLY_CHILD,
      [await childModule(), join(dir, 'state.db')],
      asRoot ? NOBODY : undefined,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      whileReadOnly: ['read_only', 'read_only'],
      health: { ok: false, detail: expect.stringMatching(/read-only/) as string },
      afterwards: 'ok',
      kept: { before: 1, after: 1 },
      lines: ['SqliteStore: store unavailable', 'SqliteStore: store available again'],
    });
  });
});
