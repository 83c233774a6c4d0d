import { describe, expect, it } from 'vitest';
import { entrySources, SdkReach } from './sdk-reach.js';
import type { WorkspacePackage } from './workspace.js';

const CORE = '/w/packages/core';
const ERRORS = '/w/packages/errors';

const ENTRIES = new Map([
  ['@ext/core', `${CORE}/src/index.ts`],
  ['@ext/core/testing', `${CORE}/src/testing/index.ts`],
]);

/** A scan over in-memory sources: core's kit loads the v1 SDK through a local file, core's root loads none. */
function reachOver(files: Readonly<Record<string, string>>): SdkReach {
  const all: Record<string, string> = {
    [`${CORE}/src/index.ts`]: "export { compose } from './compose.js';\n",
    [`${CORE}/src/compose.ts`]: "import { Type } from 'typebox';\nexport const compose = Type;\n",
    [`${CORE}/src/testing/index.ts`]: "export { pair } from './pair.js';\n",
    [`${CORE}/src/testing/pair.ts`]: "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\n",
    ...files,
  };
  return new SdkReach(ENTRIES, (file) => all[file]);
}

describe('SdkReach', () => {
  it('finds an SDK imported directly, type-only imports included', () => {
    const reach = reachOver({
      [`${ERRORS}/src/a.test.ts`]: "import { McpServer } from '@modelcontextprotocol/server';\n",
      [`${ERRORS}/src/b.test.ts`]: "import type { Client } from '@modelcontextprotocol/client';\n",
    });
    expect(reach.route(`${ERRORS}/src/a.test.ts`)).toEqual(['@modelcontextprotocol/server']);
    expect(reach.route(`${ERRORS}/src/b.test.ts`)).toEqual(['@modelcontextprotocol/client']);
  });

  it("follows local files and a workspace entry point into the entry's own local files", () => {
    const reach = reachOver({
      [`${ERRORS}/src/e2e.test.ts`]: "import { it } from 'vitest';\nimport { start } from './fixtures/start.js';\n",
      [`${ERRORS}/src/fixtures/start.ts`]: "import {\n  pair,\n} from '@ext/core/testing';\n",
    });
    expect(reach.route(`${ERRORS}/src/e2e.test.ts`)).toEqual([
      './fixtures/start.js',
      '@ext/core/testing',
      './pair.js',
      '@modelcontextprotocol/sdk/client/index.js',
    ]);
  });

  it('leaves out a file whose imports reach no SDK: other packages, an SDK-free entry point, data', () => {
    const reach = reachOver({
      [`${ERRORS}/src/logic.test.ts`]: [
        "import fc from 'fast-check';",
        "import { compose } from '@ext/core';",
        "import schema from './schema.json' with { type: 'json' };",
        'const note = \'copied from "@modelcontextprotocol/sdk"\';',
      ].join('\n'),
    });
    expect(reach.route(`${ERRORS}/src/logic.test.ts`)).toBeUndefined();
  });

  it('keeps a file that starts another program, whose imports it cannot see', () => {
    const reach = reachOver({
      [`${ERRORS}/src/crash.test.ts`]: "import { spawn } from 'node:child_process';\n",
      [`${ERRORS}/src/worker.test.ts`]: "import './support.js';\n",
      [`${ERRORS}/src/support.ts`]: "import { Worker } from 'worker_threads';\n",
    });
    expect(reach.route(`${ERRORS}/src/crash.test.ts`)).toEqual(['node:child_process']);
    expect(reach.route(`${ERRORS}/src/worker.test.ts`)).toEqual(['./support.js', 'worker_threads']);
  });

  it('answers for every file of an import cycle, whichever is asked first', () => {
    const reach = reachOver({
      [`${ERRORS}/src/a.ts`]: "import './b.js';\nimport './c.js';\n",
      [`${ERRORS}/src/b.ts`]: "import './a.js';\n",
      [`${ERRORS}/src/c.ts`]: "import '@modelcontextprotocol/server';\n",
      [`${ERRORS}/src/d.ts`]: "import './e.js';\n",
      [`${ERRORS}/src/e.ts`]: "import './d.js';\n",
    });
    expect(reach.route(`${ERRORS}/src/a.ts`)).toEqual(['./c.js', '@modelcontextprotocol/server']);
    expect(reach.route(`${ERRORS}/src/b.ts`)).toEqual(['./a.js', './c.js', '@modelcontextprotocol/server']);
    expect(reach.route(`${ERRORS}/src/d.ts`)).toBeUndefined();
    expect(reach.route(`${ERRORS}/src/e.ts`)).toBeUndefined();
  });

  it('resolves a directory import and a plain JavaScript file', () => {
    const reach = reachOver({
      [`${ERRORS}/src/a.test.ts`]: "import './dir';\n",
      [`${ERRORS}/src/dir/index.ts`]: "import '../server.mjs';\n",
      [`${ERRORS}/src/server.mjs`]: "import '@modelcontextprotocol/server';\n",
    });
    expect(reach.route(`${ERRORS}/src/a.test.ts`)).toEqual(['./dir', '../server.mjs', '@modelcontextprotocol/server']);
  });

  it('refuses an import it cannot follow instead of taking it for SDK-free', () => {
    const reach = reachOver({
      [`${ERRORS}/src/missing.test.ts`]: "import './gone.js';\n",
      [`${ERRORS}/src/internal.test.ts`]: "import '@ext/core/internal';\n",
    });
    expect(() => reach.route(`${ERRORS}/src/missing.test.ts`)).toThrow(/imports \.\/gone\.js: .* no such file/);
    expect(() => reach.route(`${ERRORS}/src/internal.test.ts`)).toThrow(/@ext\/core\/internal, which is not an entry/);
  });
});

describe('entrySources', () => {
  it("maps each built entry point of a package's exports to the source it is built from", () => {
    const core: WorkspacePackage = {
      name: '@ext/core',
      version: '0.1.0',
      dir: CORE,
      path: 'packages/core',
      manifest: {
        name: '@ext/core',
        version: '0.1.0',
        exports: {
          '.': { types: './dist/index.d.ts', default: './dist/index.js' },
          './sdk-v2/server': { types: './dist/sdk-v2/server.d.ts', default: './dist/sdk-v2/server.js' },
          './seed-schemas': { types: './dist/testing/seed.d.ts', default: './dist/testing/seed.js' },
          './package.json': './package.json',
        },
      },
    };
    expect(Object.fromEntries(entrySources([core]))).toEqual({
      '@ext/core': `${CORE}/src/index.ts`,
      '@ext/core/sdk-v2/server': `${CORE}/src/sdk-v2/server.ts`,
      '@ext/core/seed-schemas': `${CORE}/src/testing/seed.ts`,
    });
  });
});
