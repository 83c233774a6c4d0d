import { describe, expect, it } from 'vitest';
import { effectiveRange, expectedReleases } from './release-model.js';
import type { PackageManifest } from './workspace.js';

const core = (version: string): PackageManifest => ({ name: '@ext/core', version });
const extension = (
  name: string,
  version: string,
  peers: Record<string, string>,
  extra: Partial<PackageManifest> = {},
): PackageManifest => ({
  name,
  version,
  peerDependencies: peers,
  ...extra,
});

describe('effectiveRange', () => {
  it.each([
    ['workspace:^', '1.2.3', '^1.2.3'],
    ['workspace:~', '1.2.3', '~1.2.3'],
    ['workspace:*', '1.2.3', '1.2.3'],
    ['workspace:>=1.0.0', '1.2.3', '>=1.0.0'],
    ['^2.0.0', '1.2.3', '^2.0.0'],
  ])('%s at %s is %s', (range, version, expected) => {
    expect(effectiveRange(range, version)).toBe(expected);
  });
});

describe('expectedReleases', () => {
  const workspace = [
    core('1.0.0'),
    extension('@ext/errors', '1.0.0', { '@ext/core': 'workspace:^' }),
    extension('@ext/idempotency', '1.0.0', { '@ext/core': 'workspace:^' }),
    extension(
      '@ext/transactions',
      '1.0.0',
      { '@ext/core': 'workspace:^', '@ext/idempotency': 'workspace:^' },
      { devDependencies: { '@ext/errors': 'workspace:*' } },
    ),
    { name: '@ext/demo', version: '0.0.0', private: true, dependencies: { '@ext/core': 'workspace:*' } },
  ];

  it('releases the named package alone when every dependent range still holds', () => {
    expect(expectedReleases(workspace, { '@ext/core': 'minor' })).toEqual(new Map([['@ext/core', '1.1.0']]));
    expect(expectedReleases(workspace, { '@ext/idempotency': 'minor' })).toEqual(
      new Map([['@ext/idempotency', '1.1.0']]),
    );
  });

  it('ignores devDependencies and never versions a private package', () => {
    expect(expectedReleases(workspace, { '@ext/errors': 'major' })).toEqual(new Map([['@ext/errors', '2.0.0']]));
    expect(() => expectedReleases(workspace, { '@ext/demo': 'patch' })).toThrow(/not a versioned package/);
  });

  it('a peer left behind is a major of the dependent, transitively', () => {
    expect(expectedReleases(workspace, { '@ext/core': 'major' })).toEqual(
      new Map([
        ['@ext/core', '2.0.0'],
        ['@ext/errors', '2.0.0'],
        ['@ext/idempotency', '2.0.0'],
        ['@ext/transactions', '2.0.0'],
      ]),
    );
    expect(expectedReleases(workspace, { '@ext/idempotency': 'major' })).toEqual(
      new Map([
        ['@ext/idempotency', '2.0.0'],
        ['@ext/transactions', '2.0.0'],
      ]),
    );
  });

  it('on 0.x a minor leaves a caret range', () => {
    const zero = [core('0.2.0'), extension('@ext/errors', '0.3.0', { '@ext/core': 'workspace:^' })];
    expect(expectedReleases(zero, { '@ext/core': 'patch' })).toEqual(new Map([['@ext/core', '0.2.1']]));
    expect(expectedReleases(zero, { '@ext/core': 'minor' })).toEqual(
      new Map([
        ['@ext/core', '0.3.0'],
        ['@ext/errors', '1.0.0'],
      ]),
    );
  });

  it('a runtime dependency left behind is a patch of the dependent, unless it already gets more', () => {
    const pinned = [
      core('1.0.0'),
      { name: '@ext/store', version: '1.0.0', dependencies: { '@ext/core': 'workspace:*' } },
    ];
    expect(expectedReleases(pinned, { '@ext/core': 'patch' })).toEqual(
      new Map([
        ['@ext/core', '1.0.1'],
        ['@ext/store', '1.0.1'],
      ]),
    );
    expect(expectedReleases(pinned, { '@ext/core': 'patch', '@ext/store': 'minor' })).toEqual(
      new Map([
        ['@ext/core', '1.0.1'],
        ['@ext/store', '1.1.0'],
      ]),
    );
  });
});
