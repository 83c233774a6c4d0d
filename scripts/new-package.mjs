// Scaffolds a complete extension package (docs/ARCHITECTURE.md, 'Adding an extension'): the SDK-free `.` entry
// (identifier, wire schemas), the `./server` and `./client` halves, an end-to-end test on every SDK line and era,
// README, SPEC and CHANGELOG. It composes with the family as generated; fill in the behaviour from there.
// Usage: node scripts/new-package.mjs <name> "<one-sentence description>" [--example]
//   --example: a private example under examples/<name> (identifier com.example/<name>), not a published package.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import prettier from 'prettier';
import { packageFiles } from './new-package/package-files.mjs';
import { sourceFiles } from './new-package/source-files.mjs';

const args = process.argv.slice(2);
const example = args.includes('--example');
const [name, description = ''] = args.filter((arg) => arg !== '--example');
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error('usage: node scripts/new-package.mjs <name> "<description>" [--example]');
  process.exit(2);
}
const dir = join(example ? 'examples' : 'packages', name);
if (existsSync(dir)) {
  console.error(`${dir} already exists`);
  process.exit(2);
}
const names = {
  name,
  description,
  example,
  npm: example ? `@ext/example-${name}` : `@ext/${name}`,
  camel: name.replace(/-([a-z0-9])/g, (_match, char) => char.toUpperCase()),
  pascal: name.replace(/(^|-)([a-z0-9])/g, (_match, _dash, char) => char.toUpperCase()),
  constant: name.replace(/-/g, '_').toUpperCase(),
  prefix: name
    .split('-')
    .map((word) => word[0])
    .join('')
    .toUpperCase(),
};
const files = { ...packageFiles(names), ...sourceFiles(names) };
for (const [path, text] of Object.entries(files)) {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  // Code in the house format; the documents as written (prettier never touches Markdown here).
  const formatted = path.endsWith('.md')
    ? text
    : await prettier.format(text, { ...(await prettier.resolveConfig(resolve(file))), filepath: file });
  writeFileSync(file, formatted);
}
console.log(`created ${dir}: ${Object.keys(files).sort().join(', ')}`);
if (!example) console.log('next: pnpm install, list it in apps/release-checks, and add a changeset');
