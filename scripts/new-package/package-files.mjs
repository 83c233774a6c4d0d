// The house file set of a new extension package beside its sources: manifest, build, test and docs.

/** The SDK versions the workspace tests with, for the new package's end-to-end test. */
const SDK_DEV_DEPENDENCIES = {
  '@modelcontextprotocol/client': '2.4.0',
  '@modelcontextprotocol/sdk': '1.32.2',
  '@modelcontextprotocol/server': '2.4.0',
  zod: '^4.6.7',
};

function manifest({ npm, description, example }) {
  const entry = (file) => ({ types: `./dist/${file}.d.ts`, default: `./dist/${file}.js` });
  const published = example
    ? { private: true }
    : { sideEffects: false, files: ['dist'], publishConfig: { access: 'public' } };
  const check = 'publint && attw --pack . --profile esm-only && node ../../scripts/check-error-brands.mjs';
  return {
    name: npm,
    version: example ? '0.0.0' : '0.1.0',
    description,
    license: 'MIT',
    type: 'module',
    ...published,
    engines: { node: '>=20.19' },
    exports: {
      '.': entry('index'),
      './server': entry('server'),
      './client': entry('client'),
      './package.json': './package.json',
    },
    scripts: {
      build: 'tsup',
      test: 'vitest run',
      typecheck: 'tsc -p tsconfig.json',
      lint: 'eslint .',
      ...(example ? {} : { check }),
    },
    dependencies: { typebox: '^1.4.3' },
    peerDependencies: { '@ext/core': 'workspace:^' },
    devDependencies: { '@ext/core': 'workspace:*', ...SDK_DEV_DEPENDENCIES },
  };
}

const TSUP = `// Build: tsup writes the package's entry points as ESM with type declarations into dist/.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/server.ts', 'src/client.ts'],
  format: ['esm'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
`;

const VITEST = `import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({ test: sharedTestOptions });
`;

const readme = ({ npm, camel, description, constant }) => `# ${npm}

${description}

## Install

\`\`\`sh
npm install @ext/core ${npm}
\`\`\`

## Server half

<!-- example: examples/usage.ts#server -->
\`\`\`ts
${usage({ npm, camel }).server}
\`\`\`

Each result of a client that negotiated \`${constant}_ID\` carries
\`_meta[${constant}_ID] = { calls }\`: how many calls this server answered
(SPEC.md).

## Client half

<!-- example: examples/usage.ts#client -->
\`\`\`ts
${usage({ npm, camel }).client}
\`\`\`

## Options

\`${camel}Server(options)\`:

| option | default | meaning |
|---|---|---|
| \`stage\` | \`{ after: 'intent' }\` | where its middleware runs: a named stage, or just before or after one |

\`${camel}Client()\` takes no options.

## Compatibility

Identifier \`${constant}_ID\`, wire version \`1.0\` (see [SPEC.md](./SPEC.md)).
Works with \`@modelcontextprotocol/sdk\` \`>=1.29 <2\` and
\`@modelcontextprotocol/server\` / \`@modelcontextprotocol/client\` \`^2.0.0\`
(2025-11-25 and 2026-07-28 eras) through \`@ext/core\`. Node \`>=20.19\`, ESM
only.
`;

/** The README's code, kept type-checked in examples/usage.ts (the house's README check compares them). */
function usage({ npm, camel }) {
  return {
    server: `import { composeServer } from '@ext/core';
import { ${camel}Server } from '${npm}/server';

export const composed = composeServer([${camel}Server()]);`,
    client: `import { ${camel}Client } from '${npm}/client';

export const extensions = [${camel}Client()];`,
  };
}

const usageFile = (names) => {
  const { server, client } = usage(names);
  return `// The README's examples, type-checked.
// #region server
${server}
// #endregion server

// #region client
${client}
// #endregion client
`;
};

const spec = ({ npm, prefix, constant }) => `# ${npm} wire contract

The key words MUST, MUST NOT, SHOULD and MAY are to be read as in RFC 2119.

- **${prefix}-1** A server MUST put \`_meta[${constant}_ID] = { calls }\` on every
  result of a client that negotiated the extension, \`calls\` counting the
  calls it answered, this one included; a client that did not negotiate it
  gets nothing of it.
`;

/** The package's manifest, build, test configuration and documents, by path. */
export function packageFiles(names) {
  return {
    'package.json': `${JSON.stringify(manifest(names), null, 2)}\n`,
    'tsconfig.json':
      '{\n  "extends": "../../tsconfig.base.json",\n  "include": ["src", "examples", "*.config.ts"]\n}\n',
    'examples/usage.ts': usageFile(names),
    'tsup.config.ts': TSUP,
    'vitest.config.ts': VITEST,
    'README.md': readme(names),
    'SPEC.md': spec(names),
    'CHANGELOG.md': `# ${names.npm}\n`,
  };
}
