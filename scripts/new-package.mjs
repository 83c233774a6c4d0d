// Scaffolds packages/<name> with the house file set (docs/ARCHITECTURE.md, 'Adding an extension').
// Usage: node scripts/new-package.mjs <name> "<one-sentence description>"
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [name, description = ''] = process.argv.slice(2);
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error('usage: node scripts/new-package.mjs <name> "<description>"');
  process.exit(2);
}
const dir = join('packages', name);
if (existsSync(dir)) {
  console.error(`${dir} already exists`);
  process.exit(2);
}
mkdirSync(join(dir, 'src'), { recursive: true });
const pkg = {
  name: `@ext/${name}`,
  version: '0.1.0',
  description,
  license: 'MIT',
  type: 'module',
  sideEffects: false,
  files: ['dist'],
  engines: { node: '>=20.19' },
  publishConfig: { access: 'public' },
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './package.json': './package.json',
  },
  scripts: {
    build: 'tsup',
    test: 'vitest run',
    typecheck: 'tsc -p tsconfig.json',
    lint: 'eslint .',
    check: 'publint && attw --pack . --profile esm-only && node ../../scripts/check-error-brands.mjs',
  },
  dependencies: {},
  peerDependencies: { '@ext/core': 'workspace:^' },
  devDependencies: { '@ext/core': 'workspace:*' },
};
writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
writeFileSync(
  join(dir, 'tsconfig.json'),
  '{\n  "extends": "../../tsconfig.base.json",\n  "include": ["src", "*.config.ts"]\n}\n',
);
writeFileSync(
  join(dir, 'tsup.config.ts'),
  `import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
`,
);
writeFileSync(
  join(dir, 'vitest.config.ts'),
  `import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({ test: sharedTestOptions });
`,
);
writeFileSync(join(dir, 'src', 'index.ts'), 'export {};\n');
writeFileSync(join(dir, 'README.md'), `# @ext/${name}\n\n${description}\n`);
writeFileSync(join(dir, 'SPEC.md'), `# @ext/${name} wire contract\n`);
writeFileSync(join(dir, 'CHANGELOG.md'), `# @ext/${name}\n`);
console.log(`created ${dir}`);
