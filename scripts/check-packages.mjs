// Checks that every publishable package has the house file set and
// package.json shape (docs/ARCHITECTURE.md, 'Conventions'). Exits 1 with one line per problem.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const REQUIRED_FILES = [
  'README.md',
  'SPEC.md',
  'CHANGELOG.md',
  'package.json',
  'tsconfig.json',
  'tsup.config.ts',
  'vitest.config.ts',
];
const HOSTS = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/client'];
const problems = [];
// The release checks pack every publishable package: listing each one as a
// devDependency is what makes turbo build it before they run.
const RELEASE_CHECKS = join('apps', 'release-checks', 'package.json');
const releaseChecks = existsSync(RELEASE_CHECKS) ? JSON.parse(readFileSync(RELEASE_CHECKS, 'utf8')) : undefined;

function findTests(dir) {
  return readdirSync(dir, { recursive: true }).some((file) => String(file).endsWith('.test.ts'));
}

for (const entry of readdirSync('packages')) {
  const dir = join('packages', entry);
  if (!statSync(dir).isDirectory()) continue;
  const where = `packages/${entry}`;
  for (const file of REQUIRED_FILES) if (!existsSync(join(dir, file))) problems.push(`${where}: missing ${file}`);
  if (!existsSync(join(dir, 'src'))) {
    problems.push(`${where}: missing src/`);
    continue;
  }
  if (!findTests(join(dir, 'src'))) problems.push(`${where}: no *.test.ts beside the code in src/`);
  if (!existsSync(join(dir, 'package.json'))) continue;
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (pkg.private) continue;
  if (pkg.name !== `@ext/${entry}`) problems.push(`${where}: name must be @ext/${entry}, is ${pkg.name}`);
  if (releaseChecks && releaseChecks.devDependencies?.[pkg.name] !== 'workspace:*') {
    problems.push(
      `${where}: apps/release-checks/package.json must list "${pkg.name}": "workspace:*" in devDependencies (it is packed by the release checks)`,
    );
  }
  if (pkg.type !== 'module') problems.push(`${where}: "type" must be "module"`);
  if (pkg.sideEffects !== false) problems.push(`${where}: "sideEffects" must be false`);
  if (JSON.stringify(pkg.files) !== '["dist"]') problems.push(`${where}: "files" must be ["dist"]`);
  if (!pkg.engines?.node) problems.push(`${where}: "engines.node" is missing`);
  if (pkg.publishConfig?.access !== 'public') problems.push(`${where}: "publishConfig.access" must be "public"`);
  if (!pkg.description) problems.push(`${where}: "description" is missing`);
  const exportsMap = pkg.exports ?? {};
  if (!exportsMap['./package.json']) problems.push(`${where}: exports must include "./package.json"`);
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (typeof target === 'string') continue;
    if (Object.keys(target)[0] !== 'types') problems.push(`${where}: exports["${subpath}"] must list "types" first`);
  }
  // A command-line tool (it has a `bin`) is installed on its own, not
  // composed into an application: it may bring its own SDK client and core.
  for (const name of pkg.bin === undefined ? [...HOSTS, '@ext/core'] : []) {
    if (pkg.dependencies?.[name]) problems.push(`${where}: ${name} must be a peer dependency, not a dependency`);
  }
  for (const name of Object.keys(pkg.peerDependencies ?? {})) {
    if (HOSTS.includes(name) && !pkg.peerDependenciesMeta?.[name]?.optional) {
      problems.push(`${where}: SDK peer ${name} must be optional`);
    }
  }
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  for (const section of ['Install', 'Options', 'Compatibility']) {
    if (!new RegExp(`^##+ .*${section}`, 'mi').test(readme))
      problems.push(`${where}: README.md has no "${section}" section`);
  }
  const spec = existsSync(join(dir, 'SPEC.md')) ? readFileSync(join(dir, 'SPEC.md'), 'utf8') : '';
  if (!/\bMUST\b/.test(spec)) problems.push(`${where}: SPEC.md states no MUST requirement`);
}

if (problems.length > 0) {
  console.error(problems.map((problem) => `- ${problem}`).join('\n'));
  console.error(`\n${problems.length} problem(s) in the package file set.`);
  process.exit(1);
}
console.log('package file set: ok');
