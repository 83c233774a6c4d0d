import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { declaredSdkRanges, importedPackages, matrixEntries, packageOfSpecifier } from './matrix.js';
import { parseViewVersions } from './npm.js';
import type { PackageManifest, WorkspacePackage } from './workspace.js';

function pkg(name: string, manifest: Partial<PackageManifest>): WorkspacePackage {
  return {
    name,
    version: '0.1.0',
    dir: `/x/${name}`,
    path: `packages/${name}`,
    manifest: { name, version: '0.1.0', ...manifest },
  };
}

const SDK_PEERS: Partial<PackageManifest> = {
  peerDependencies: {
    '@modelcontextprotocol/sdk': '>=1.29.0 <2',
    '@modelcontextprotocol/server': '^2.0.0',
    '@modelcontextprotocol/client': '^2.0.0',
  },
  peerDependenciesMeta: {
    '@modelcontextprotocol/sdk': { optional: true },
    '@modelcontextprotocol/server': { optional: true },
    '@modelcontextprotocol/client': { optional: true },
  },
};

describe('declaredSdkRanges', () => {
  it('collects the one range every package declares', () => {
    const result = declaredSdkRanges([
      pkg('core', SDK_PEERS),
      pkg('errors', { peerDependencies: { '@ext/core': '^0.1.0' } }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.ranges).toEqual(SDK_PEERS.peerDependencies);
  });

  it('reports disagreeing, required, invalid and missing ranges', () => {
    const other = pkg('other', {
      peerDependencies: { '@modelcontextprotocol/sdk': '^1.30.0', '@modelcontextprotocol/server': 'not a range' },
    });
    const { problems } = declaredSdkRanges([
      pkg('core', { ...SDK_PEERS, peerDependencies: { '@modelcontextprotocol/sdk': '>=1.29.0 <2' } }),
      other,
    ]);
    expect(problems.join('\n')).toContain(
      'other declares @modelcontextprotocol/sdk "^1.30.0" but core declares ">=1.29.0 <2"',
    );
    expect(problems.join('\n')).toContain('other: peer @modelcontextprotocol/sdk must be optional');
    expect(problems.join('\n')).toContain('"not a range" of @modelcontextprotocol/server is not a valid semver range');
    expect(problems.join('\n')).toContain('no package declares a peer range for @modelcontextprotocol/client');
  });
});

describe('matrixEntries', () => {
  it('takes the lowest and the newest published version of every SDK package', () => {
    const entries = matrixEntries({
      '@modelcontextprotocol/sdk': ['1.29.0', '1.30.1', '1.32.2'],
      '@modelcontextprotocol/server': ['2.0.0', '2.4.0'],
      '@modelcontextprotocol/client': ['2.0.0', '2.3.1'],
    });
    expect(entries).toEqual([
      {
        label: 'lowest',
        versions: {
          '@modelcontextprotocol/sdk': '1.29.0',
          '@modelcontextprotocol/server': '2.0.0',
          '@modelcontextprotocol/client': '2.0.0',
        },
      },
      {
        label: 'newest',
        versions: {
          '@modelcontextprotocol/sdk': '1.32.2',
          '@modelcontextprotocol/server': '2.4.0',
          '@modelcontextprotocol/client': '2.3.1',
        },
      },
    ]);
  });

  it('refuses a range with nothing published in it', () => {
    expect(() => matrixEntries({ '@modelcontextprotocol/sdk': [] })).toThrow(
      /no published version of @modelcontextprotocol\/sdk/,
    );
  });
});

describe('parseViewVersions', () => {
  it('reads one version, several, or none, and drops what is not a version', () => {
    expect(parseViewVersions('"1.29.0"\n')).toEqual(['1.29.0']);
    expect(parseViewVersions('["1.29.0", "1.30.0", "latest"]')).toEqual(['1.29.0', '1.30.0']);
    expect(parseViewVersions('')).toEqual([]);
  });
});

describe('imports of a source file', () => {
  it('maps specifiers to packages', () => {
    expect(packageOfSpecifier('@modelcontextprotocol/sdk/server/mcp.js')).toBe('@modelcontextprotocol/sdk');
    expect(packageOfSpecifier('typebox/compile')).toBe('typebox');
    expect(packageOfSpecifier('./local.js')).toBeUndefined();
    expect(packageOfSpecifier('node:fs')).toBeUndefined();
    expect(packageOfSpecifier('fs')).toBeUndefined();
  });

  it('finds static, type-only, side-effect, multi-line and dynamic imports, and re-exports', () => {
    const source = [
      "import { a } from 'alpha';",
      "import type { B } from '@scope/beta/sub';",
      "import 'gamma';",
      'import {',
      '  d,',
      '  e,',
      "} from 'delta';",
      "export { f } from 'epsilon';",
      "const lazy = await import('zeta');",
      "import * as everything from 'eta';",
      "import theta, { iota } from 'theta';",
    ].join('\n');
    expect([...importedPackages(source)].sort()).toEqual([
      '@scope/beta',
      'alpha',
      'delta',
      'epsilon',
      'eta',
      'gamma',
      'theta',
      'zeta',
    ]);
  });

  it('never takes the word "from" inside a string for an import', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((text) => !/['"`\\\n]/.test(text)),
        (text) => {
          const source = `it('distinguishes null from "${text}"', () => {});\nconst s = "copied from '${text}'";\n`;
          expect([...importedPackages(source)]).toEqual([]);
        },
      ),
    );
  });
});
