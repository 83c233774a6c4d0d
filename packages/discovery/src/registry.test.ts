import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveAuthFlow, registryEntryUrl } from './candidate.js';
import {
  OFFICIAL_META_KEY,
  parseRegistryEntry,
  type IndexedEntry,
  type RegistryServerDetail,
} from './registry-entry.js';
import { RegistryIndex } from './registry.js';
import { compareVersions, pickLatest } from './versions.js';

const REGISTRY = 'https://registry.modelcontextprotocol.io';
const fixture = JSON.parse(readFileSync(new URL('./fixtures/registry.json', import.meta.url), 'utf8')) as {
  servers: unknown[];
};

function entry(
  name: string,
  version: string,
  official: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    server: { name, description: `${name} does things`, version, ...extra },
    _meta: { [OFFICIAL_META_KEY]: { status: 'active', ...official } },
  };
}

describe('RegistryIndex (DISC-4, DISC-5)', () => {
  it('keeps, per server, the latest active version of the fixture', () => {
    const index = new RegistryIndex({ registryUrl: REGISTRY });
    const report = index.add(fixture.servers);
    expect(report).toEqual({ stored: fixture.servers.length, unchanged: 0, skipped: [] });
    const names = index.candidates().map((candidate) => candidate.name);
    expect(new Set(names).size).toBe(names.length);
    expect(index.latest('com.pixelforge/design')?.version).toBe('1.2.0');
    expect(index.latest('com.tracklane/issues')?.version).toBe('4.1.0');
    // Two versions flagged latest: the most recently published wins.
    expect(index.latest('io.github.recipebox/recipes')?.version).toBe('2.1.0');
    // The flagged latest was deleted: the remaining active version is recommended.
    expect(index.latest('com.quizly/quiz')?.version).toBe('1.0.0');
    expect(index.latest('io.github.pgtools/postgres')?.version).toBe('0.6.0');
    for (const excluded of [
      'io.github.vectorworks-oss/sketch-reader',
      'io.github.crawlkit/crawler',
      'io.github.kanbanize/boards',
      'io.github.fakewallet/crypto-wallet',
    ]) {
      expect(index.latest(excluded)).toBeUndefined();
      expect(names).not.toContain(excluded);
      expect(index.versions(excluded).length).toBeGreaterThan(0);
    }
  });

  it('an update replaces the stored copy, and a deprecation withdraws the server', () => {
    const index = new RegistryIndex();
    index.add([entry('com.example/a', '1.0.0', { isLatest: true, updatedAt: '2026-01-01T00:00:00Z' })]);
    expect(index.candidates().map((c) => c.name)).toEqual(['com.example/a']);
    const update = index.add([
      entry('com.example/a', '1.0.0', { status: 'deprecated', isLatest: true, updatedAt: '2026-02-01T00:00:00Z' }),
    ]);
    expect(update.stored).toBe(1);
    expect(index.candidates()).toEqual([]);
  });

  it('never rolls an entry back to an older copy (pages out of order)', () => {
    const index = new RegistryIndex();
    index.add([entry('com.example/a', '1.0.0', { status: 'deleted', updatedAt: '2026-02-01T00:00:00Z' })]);
    const stale = index.add([entry('com.example/a', '1.0.0', { status: 'active', updatedAt: '2026-01-01T00:00:00Z' })]);
    expect(stale).toMatchObject({ stored: 0, unchanged: 1 });
    expect(index.candidates()).toEqual([]);
  });

  it('skips invalid entries, naming the field, and keeps the valid ones', () => {
    const index = new RegistryIndex();
    const report = index.add([
      entry('com.example/good', '1.0.0'),
      { server: { name: 'no slash', description: 'x', version: '1' } },
      { server: { description: 'x', version: '1' } },
      { server: { name: 'com.example/b', description: 'x', version: '1', remotes: 'https://x' } },
      entry('com.example/c', '1.0.0', { updatedAt: 'yesterday' }),
      'not an object',
      null,
    ]);
    expect(report.stored).toBe(1);
    expect(report.skipped.map((skip) => [skip.position, skip.pointer])).toEqual([
      [1, '/server/name'],
      [2, '/server/name'],
      [3, '/server/remotes'],
      [4, `/_meta/${OFFICIAL_META_KEY.replace('/', '~1')}/updatedAt`],
      [5, ''],
      [6, ''],
    ]);
    expect(report.skipped[0]?.name).toBe('no slash');
  });

  it('accepts a bare server.json as an active entry', () => {
    const parsed = parseRegistryEntry({ name: 'com.example/bare', description: 'Bare', version: '0.1.0' });
    expect(parsed.ok && parsed.entry.official).toEqual({
      status: undefined,
      publishedAt: undefined,
      updatedAt: undefined,
      isLatest: undefined,
    });
    const index = new RegistryIndex();
    index.add([{ name: 'com.example/bare', description: 'Bare', version: '0.1.0' }]);
    expect(index.latest('com.example/bare')?.version).toBe('0.1.0');
  });

  it('is bounded: entries past maxEntries are skipped', () => {
    const index = new RegistryIndex({ maxEntries: 2 });
    const report = index.add([entry('com.example/a', '1'), entry('com.example/b', '1'), entry('com.example/c', '1')]);
    expect(report.stored).toBe(2);
    expect(report.skipped[0]?.message).toMatch(/full/);
    expect(index.add([entry('com.example/a', '1', { updatedAt: '2026-01-01T00:00:00Z' })]).stored).toBe(1);
  });

  it('round-trips through its list form, with the registry each entry came from', () => {
    const index = new RegistryIndex();
    index.add(fixture.servers.slice(0, 10), REGISTRY);
    const copy = new RegistryIndex();
    copy.add(index.toList().servers);
    expect(copy.candidates()).toEqual(index.candidates());
    expect(copy.candidates()[0]?.registryUrl).toMatch(
      /^https:\/\/registry\.modelcontextprotocol\.io\/v0\.1\/servers\//,
    );
    expect(copy.updatedUntil(REGISTRY)).toBe(index.updatedUntil(REGISTRY));
    expect(index.updatedUntil('https://elsewhere.example')).toBeUndefined();
  });
});

describe('registry_url and auth_flow', () => {
  it('links the exact version on the registry', () => {
    expect(registryEntryUrl(REGISTRY, 'com.example/a b', '1.0.0+build')).toBe(
      `${REGISTRY}/v0.1/servers/com.example%2Fa%20b/versions/1.0.0%2Bbuild`,
    );
    expect(registryEntryUrl('https://mirror.example/registry/', 'com.example/a', '1')).toBe(
      'https://mirror.example/registry/v0.1/servers/com.example%2Fa/versions/1',
    );
  });

  it('reads how a client authenticates from the way to connect', () => {
    const server = (extra: Partial<RegistryServerDetail>): RegistryServerDetail => ({
      name: 'com.example/a',
      description: 'd',
      version: '1',
      ...extra,
    });
    expect(deriveAuthFlow(server({ remotes: [{ type: 'streamable-http', url: 'https://a.example/mcp' }] }))).toBe(
      'oauth2',
    );
    expect(
      deriveAuthFlow(
        server({
          remotes: [
            { type: 'sse', url: 'https://a.example/sse', headers: [{ name: 'Authorization', isSecret: true }] },
          ],
        }),
      ),
    ).toBe('api_key');
    expect(
      deriveAuthFlow(
        server({
          packages: [
            { registryType: 'npm', identifier: 'a', environmentVariables: [{ name: 'TOKEN', isSecret: true }] },
          ],
        }),
      ),
    ).toBe('api_key');
    expect(deriveAuthFlow(server({ packages: [{ registryType: 'npm', identifier: 'a' }] }))).toBe('none');
    // A plain-http remote is not offered; the package is.
    expect(
      deriveAuthFlow(
        server({
          remotes: [{ type: 'streamable-http', url: 'http://a.example/mcp' }],
          packages: [{ registryType: 'npm', identifier: 'a' }],
        }),
      ),
    ).toBe('none');
    expect(deriveAuthFlow(server({}))).toBeUndefined();
  });
});

describe('compareVersions', () => {
  it('orders semantic versions by precedence (the semver.org example)', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.10.0',
      '2.0.0',
    ];
    for (let i = 1; i < ordered.length; i += 1) expect(compareVersions(ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
    expect(compareVersions('2026.03', '0.0.1')).toBeLessThan(0);
    expect(compareVersions('1.0.0+a', '1.0.0+b')).toBe(0);
  });

  it('is antisymmetric and reflexive on any strings', () => {
    const version = fc.oneof(
      fc
        .tuple(
          fc.nat(20),
          fc.nat(20),
          fc.nat(20),
          fc.option(fc.constantFrom('alpha', 'alpha.1', 'beta.2', 'rc.1', '1')),
        )
        .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre === null ? '' : `-${pre}`}`),
      fc.string({ maxLength: 10 }),
    );
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(compareVersions(a, a)).toBe(0);
        expect(Math.sign(compareVersions(a, b)) + Math.sign(compareVersions(b, a))).toBe(0);
      }),
    );
  });
});

describe('pickLatest', () => {
  const versionEntry = fc.record({
    version: fc.tuple(fc.nat(5), fc.nat(5), fc.nat(5)).map(([a, b, c]) => `${a}.${b}.${c}`),
    status: fc.constantFrom('active', 'deprecated', 'deleted'),
    isLatest: fc.boolean(),
    day: fc.integer({ min: 1, max: 28 }),
  });

  it('never picks a deleted version, picks one whenever one is alive, and ignores input order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(versionEntry, { selector: (v) => v.version, maxLength: 8 }), (specs) => {
        const entries = specs.map((spec) => {
          const parsed = parseRegistryEntry(
            entry('com.example/a', spec.version, {
              status: spec.status,
              isLatest: spec.isLatest,
              publishedAt: `2026-01-${String(spec.day).padStart(2, '0')}T00:00:00Z`,
            }),
          );
          if (!parsed.ok) throw new Error(parsed.message);
          return parsed.entry;
        });
        const picked = pickLatest(entries);
        const alive = entries.filter((e) => e.official.status !== 'deleted');
        expect(picked === undefined).toBe(alive.length === 0);
        if (picked !== undefined) {
          expect(picked.official.status).not.toBe('deleted');
          if (alive.some((e) => e.official.isLatest === true)) expect(picked.official.isLatest).toBe(true);
          else
            for (const other of alive) expect(compareVersions(picked.version, other.version)).toBeGreaterThanOrEqual(0);
        }
        const reversed: IndexedEntry[] = [...entries].reverse();
        expect(pickLatest(reversed)?.version).toBe(picked?.version);
      }),
    );
  });
});
