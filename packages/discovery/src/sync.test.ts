import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFICIAL_META_KEY } from './registry-entry.js';
import { RegistryIndex } from './registry.js';
import { loadRegistryFile, RegistrySyncError, saveRegistryFile, syncRegistry } from './sync.js';
import { startFakeRegistry, type FakeRegistry } from './testing/fake-registry.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/registry.json', import.meta.url), 'utf8')) as {
  servers: Record<string, unknown>[];
};
const clone = (): Record<string, unknown>[] => JSON.parse(JSON.stringify(fixture.servers)) as Record<string, unknown>[];

let registry: FakeRegistry | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await registry?.close();
  registry = undefined;
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function officialOf(entry: Record<string, unknown>): Record<string, unknown> {
  return (entry._meta as Record<string, Record<string, unknown>>)[OFFICIAL_META_KEY]!;
}

async function failure(promise: Promise<unknown>): Promise<RegistrySyncError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RegistrySyncError.isInstance(error)) throw new Error(`expected a RegistrySyncError, got ${String(error)}`);
  return error;
}

describe('syncRegistry against a registry on 127.0.0.1 (DISC-6)', () => {
  it('reads every page of /v0.1/servers, then only what changed since', async () => {
    registry = await startFakeRegistry(clone());
    const index = new RegistryIndex();
    const first = await syncRegistry(index, { url: registry.url, pageSize: 25 });
    expect(first).toMatchObject({
      pages: 3,
      received: fixture.servers.length,
      stored: fixture.servers.length,
      skipped: [],
      updatedSince: undefined,
    });
    expect(index.candidates()).toHaveLength(60);
    expect(registry.requests.map((request) => new URL(request, registry!.url).searchParams.has('cursor'))).toEqual([
      false,
      true,
      true,
    ]);
    const since = index.updatedUntil(registry.url);
    expect(since).toBe(
      fixture.servers
        .map((entry) => officialOf(entry).updatedAt as string)
        .sort()
        .at(-1),
    );

    // The registry deprecates one server and lists a new one.
    const chat = registry.entries.find((entry) => (entry.server as { name: string }).name === 'com.chatwave/mcp')!;
    Object.assign(officialOf(chat), { status: 'deprecated', updatedAt: '2026-06-01T00:00:00Z' });
    registry.entries.push({
      server: {
        name: 'com.parcelpal/tracking',
        description: 'Track parcels across carriers.',
        version: '1.0.0',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.parcelpal.example/mcp' }],
      },
      _meta: {
        [OFFICIAL_META_KEY]: {
          status: 'active',
          isLatest: true,
          publishedAt: '2026-06-02T00:00:00Z',
          updatedAt: '2026-06-02T00:00:00Z',
        },
      },
    });
    registry.requests.length = 0;
    const second = await syncRegistry(index, { url: registry.url, pageSize: 25 });
    expect(new URL(registry.requests[0]!, registry.url).searchParams.get('updated_since')).toBe(since);
    expect(second).toMatchObject({ pages: 1, stored: 2, updatedSince: since });
    const names = index.candidates().map((candidate) => candidate.name);
    expect(names).toContain('com.parcelpal/tracking');
    expect(names).not.toContain('com.chatwave/mcp');
    expect(index.candidates().find((c) => c.name === 'com.parcelpal/tracking')?.registryUrl).toBe(
      `${registry.url}/v0.1/servers/com.parcelpal%2Ftracking/versions/1.0.0`,
    );
    // DISC-12: no request ever carried anything but paging and the date.
    for (const request of registry.requests) {
      expect(
        [...new URL(request, registry.url).searchParams.keys()].every((key) =>
          ['limit', 'cursor', 'updated_since'].includes(key),
        ),
      ).toBe(true);
    }
  });

  it('updatedSince: null asks for everything again', async () => {
    registry = await startFakeRegistry(clone());
    const index = new RegistryIndex();
    await syncRegistry(index, { url: registry.url });
    const again = await syncRegistry(index, { url: registry.url, updatedSince: null });
    expect(again).toMatchObject({
      received: fixture.servers.length,
      stored: 0,
      unchanged: fixture.servers.length,
      updatedSince: undefined,
    });
  });

  it.each([
    ['status-500', 'REGISTRY_HTTP_STATUS'],
    ['not-json', 'REGISTRY_RESPONSE_INVALID'],
    ['no-servers', 'REGISTRY_RESPONSE_INVALID'],
    ['huge', 'REGISTRY_RESPONSE_TOO_LARGE'],
    ['repeat-cursor', 'REGISTRY_RESPONSE_INVALID'],
    ['redirect', 'REGISTRY_UNREACHABLE'],
  ] as const)('all or nothing: a %s on page 2 fails with %s and leaves the index unchanged', async (fault, code) => {
    registry = await startFakeRegistry(clone());
    const index = new RegistryIndex();
    registry.faults.set(fault === 'repeat-cursor' ? 1 : 2, fault);
    const error = await failure(syncRegistry(index, { url: registry.url, pageSize: 25, maxPageBytes: 32 * 1024 }));
    expect(error.code).toBe(code);
    expect(index.entryCount).toBe(0);
    if (code === 'REGISTRY_HTTP_STATUS') expect(error.status).toBe(500);
  });

  it('refuses a registry URL that is not https (plain http only on loopback), and a page budget overrun', async () => {
    const index = new RegistryIndex();
    expect((await failure(syncRegistry(index, { url: 'http://registry.example.com' }))).code).toBe(
      'REGISTRY_URL_INVALID',
    );
    expect((await failure(syncRegistry(index, { url: 'not a url' }))).code).toBe('REGISTRY_URL_INVALID');
    expect((await failure(syncRegistry(index, { url: 'https://registry.example.com/?search=x' }))).code).toBe(
      'REGISTRY_URL_INVALID',
    );
    registry = await startFakeRegistry(clone());
    expect((await failure(syncRegistry(index, { url: registry.url, pageSize: 10, maxPages: 2 }))).code).toBe(
      'REGISTRY_TOO_MANY_PAGES',
    );
    expect(index.entryCount).toBe(0);
  });

  it('reports an unreachable registry', async () => {
    registry = await startFakeRegistry([]);
    const url = registry.url;
    await registry.close();
    registry = undefined;
    expect((await failure(syncRegistry(new RegistryIndex(), { url, timeoutMs: 5000 }))).code).toBe(
      'REGISTRY_UNREACHABLE',
    );
  });
});

describe('loadRegistryFile and saveRegistryFile (DISC-4)', () => {
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'discovery-'));
    dirs.push(dir);
    return dir;
  }

  it('loads the registry list format, and saves what loads back the same', async () => {
    const dir = await tempDir();
    const index = new RegistryIndex();
    const report = await loadRegistryFile(index, new URL('./fixtures/registry.json', import.meta.url).pathname, {
      registryUrl: 'https://registry.modelcontextprotocol.io',
    });
    expect(report).toMatchObject({ entries: fixture.servers.length, stored: fixture.servers.length, skipped: [] });
    const path = join(dir, 'index.json');
    await saveRegistryFile(index, path);
    const reloaded = new RegistryIndex();
    await loadRegistryFile(reloaded, path);
    expect(reloaded.candidates()).toEqual(index.candidates());
    expect(reloaded.candidates()[0]?.registryUrl).toMatch(/^https:\/\/registry\.modelcontextprotocol\.io\//);
  });

  it('accepts a bare array of entries and a single server.json', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'array.json'), JSON.stringify(fixture.servers.slice(0, 3)));
    await writeFile(
      join(dir, 'one.json'),
      JSON.stringify({ name: 'com.example/one', description: 'One', version: '1.0.0' }),
    );
    const index = new RegistryIndex();
    expect((await loadRegistryFile(index, join(dir, 'array.json'))).stored).toBe(3);
    expect((await loadRegistryFile(index, join(dir, 'one.json'))).stored).toBe(1);
    expect(index.latest('com.example/one')?.version).toBe('1.0.0');
  });

  it('refuses a file that is not an index, changing nothing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'broken.json'), '{"servers": [');
    await writeFile(join(dir, 'other.json'), '{"hello": "world"}');
    await writeFile(join(dir, 'big.json'), JSON.stringify(fixture));
    const index = new RegistryIndex();
    expect((await failure(loadRegistryFile(index, join(dir, 'broken.json')))).code).toBe('REGISTRY_FILE_INVALID');
    expect((await failure(loadRegistryFile(index, join(dir, 'other.json')))).code).toBe('REGISTRY_FILE_INVALID');
    expect((await failure(loadRegistryFile(index, join(dir, 'big.json'), { maxBytes: 1000 }))).code).toBe(
      'REGISTRY_FILE_INVALID',
    );
    expect(index.entryCount).toBe(0);
  });
});

describe('RegistrySyncError', () => {
  it('is branded, so isInstance works across copies of the package', () => {
    const error = new RegistrySyncError('REGISTRY_HTTP_STATUS', 'x', { status: 503 });
    expect(RegistrySyncError.isInstance(error)).toBe(true);
    expect(RegistrySyncError.isInstance(new Error('x'))).toBe(false);
    expect(error.status).toBe(503);
  });
});
