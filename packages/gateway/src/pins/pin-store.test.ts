/**
 * PinStore against the in-memory store and a real SQLite file: trust on
 * first use, atomic under races (two stores on one file), accept recording
 * who and when, and a stored value that is not a pin named.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExtensionError, MemoryStore, type Store } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { definitionDigest, type ToolDefinition } from './definition.js';
import { openPinSource } from './pin-source.js';
import { PIN_UNREADABLE, pinKey, PinStore } from './pin-store.js';

const FIRST: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
};
const SECOND: ToolDefinition = { ...FIRST, description: 'Reads a file, and any other file it likes.' };
const NOW = new Date('2026-12-01T10:00:00.000Z');
const now = () => NOW;

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Two stores on one backend: the same memory store twice, or two SQLite connections to one file. */
interface Backend {
  readonly name: string;
  open(): Promise<readonly [Store, Store]>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'MemoryStore',
    open: () => {
      const store = new MemoryStore();
      return Promise.resolve([store, store] as const);
    },
  },
  {
    name: 'SQLite (two connections to one file)',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'gateway-pins-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      const path = join(dir, 'gateway.db');
      const stores = [createSqliteStore({ path }), createSqliteStore({ path })] as const;
      for (const store of stores) cleanup.push(() => store.close());
      return stores;
    },
  },
];

describe.each(BACKENDS)('PinStore on $name', (backend) => {
  it('pins the first definition it is given and keeps it; the key is gateway:pins:<upstream>:<tool>', async () => {
    const [store] = await backend.open();
    const pins = new PinStore(store, { now });
    expect(await pins.pinned('fs', 'read_file')).toBeUndefined();
    const pin = await pins.pinIfAbsent('fs', 'read_file', FIRST);
    expect(pin).toEqual({ digest: definitionDigest(FIRST), definition: FIRST, pinnedAt: NOW.toISOString() });
    expect(await pins.pinIfAbsent('fs', 'read_file', SECOND)).toEqual(pin);
    expect(await pins.pinned('fs', 'read_file')).toEqual(pin);
    expect(pinKey('fs', 'read_file')).toBe('gateway:pins:fs:read_file');
    expect(await store.get('gateway:pins:fs:read_file')).toEqual(pin);
  });

  it('two instances pinning two definitions at once: one wins, both see the same pin', async () => {
    for (let round = 0; round < 10; round++) {
      const [left, right] = await backend.open();
      const [a, b] = await Promise.all([
        new PinStore(left).pinIfAbsent('fs', 'read_file', FIRST),
        new PinStore(right).pinIfAbsent('fs', 'read_file', SECOND),
      ]);
      expect(a).toEqual(b);
      expect([definitionDigest(FIRST), definitionDigest(SECOND)]).toContain(a.digest);
      expect(await new PinStore(left).pinned('fs', 'read_file')).toEqual(a);
    }
  });

  it('accept replaces the pin, recording who accepted it and when', async () => {
    const [store, other] = await backend.open();
    const pins = new PinStore(store, { now });
    await pins.pinIfAbsent('fs', 'read_file', FIRST);
    const accepted = await pins.accept('fs', 'read_file', SECOND, 'alice');
    expect(accepted).toEqual({
      digest: definitionDigest(SECOND),
      definition: SECOND,
      pinnedAt: NOW.toISOString(),
      acceptedBy: 'alice',
      acceptedAt: NOW.toISOString(),
    });
    expect(await new PinStore(other).pinned('fs', 'read_file')).toEqual(accepted);
  });

  it('keeps only the pinned fields of what it is given', async () => {
    const [store] = await backend.open();
    const pins = new PinStore(store);
    const listed = { ...FIRST, _meta: { build: 42 } } as ToolDefinition;
    expect((await pins.pinIfAbsent('fs', 'read_file', listed)).definition).toEqual(FIRST);
    expect(await pins.pinned('fs', 'read_file')).toMatchObject({ definition: FIRST });
  });

  it('a stored value that is not a pin is an error naming the key and the field', async () => {
    const [store] = await backend.open();
    const pins = new PinStore(store);
    await store.set(pinKey('fs', 'read_file'), {
      digest: 'sha256:0',
      definition: { name: 'read_file' },
      pinnedAt: 'x',
    });
    const error: unknown = await pins.pinned('fs', 'read_file').catch((caught: unknown) => caught);
    expect(ExtensionError.isInstance(error) && error.code).toBe(PIN_UNREADABLE);
    expect((error as ExtensionError).message).toContain('gateway:pins:fs:read_file');
    expect((error as ExtensionError).details).toEqual({
      key: 'gateway:pins:fs:read_file',
      field: 'definition.inputSchema',
    });
    const tampered = { digest: 'sha256:0', definition: FIRST, pinnedAt: 'x' };
    await store.set(pinKey('fs', 'read_file'), tampered as unknown as JsonValue);
    await expect(pins.pinned('fs', 'read_file')).rejects.toThrow('digest does not match its definition');
  });
});

describe('openPinSource', () => {
  it('is the store when no lock file is named', async () => {
    const source = await openPinSource({ store: new MemoryStore() });
    expect(source).toBeInstanceOf(PinStore);
    expect(source.reviewed).toBe(false);
  });

  it('reads the lock file when one is named, and refuses to start without it', async () => {
    await expect(
      openPinSource({ store: new MemoryStore(), lockFile: '/nonexistent/gateway.lock.json' }),
    ).rejects.toThrow('cannot be read (ENOENT)');
  });
});
