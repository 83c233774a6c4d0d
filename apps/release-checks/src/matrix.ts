// The SDK range matrix: which SDK versions each package's declared peer ranges promise, to be tested.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import semver from 'semver';
import type { WorkspacePackage } from './workspace.js';

/** The SDK packages, by line. Both v2 packages move together. */
export const SDK_LINES = {
  v1: ['@modelcontextprotocol/sdk'],
  v2: ['@modelcontextprotocol/server', '@modelcontextprotocol/client'],
} as const;

export const SDK_PACKAGES: readonly string[] = [...SDK_LINES.v1, ...SDK_LINES.v2];

export interface DeclaredRanges {
  /** The peer range of each SDK package, as every package that names it declares it. */
  readonly ranges: Readonly<Record<string, string>>;
  /** Disagreements and omissions, one line each. */
  readonly problems: readonly string[];
}

/**
 * The SDK peer ranges the workspace declares. Every publishable package
 * that names an SDK as a peer must name it with the same range, and as
 * optional (a user installs one line, not both).
 */
export function declaredSdkRanges(packages: readonly WorkspacePackage[]): DeclaredRanges {
  const ranges: Record<string, string> = {};
  const owners: Record<string, string> = {};
  const problems: string[] = [];
  for (const pkg of packages) {
    for (const sdk of SDK_PACKAGES) {
      const range = pkg.manifest.peerDependencies?.[sdk];
      if (range === undefined) continue;
      if (semver.validRange(range) === null)
        problems.push(`${pkg.name}: peer range "${range}" of ${sdk} is not a valid semver range`);
      if (pkg.manifest.peerDependenciesMeta?.[sdk]?.optional !== true)
        problems.push(`${pkg.name}: peer ${sdk} must be optional`);
      const seen = ranges[sdk];
      if (seen === undefined) {
        ranges[sdk] = range;
        owners[sdk] = pkg.name;
      } else if (seen !== range) {
        problems.push(`${pkg.name} declares ${sdk} "${range}" but ${owners[sdk] ?? '?'} declares "${seen}"`);
      }
    }
  }
  for (const sdk of SDK_PACKAGES)
    if (ranges[sdk] === undefined) problems.push(`no package declares a peer range for ${sdk}`);
  return { ranges, problems };
}

export interface MatrixEntry {
  readonly label: 'lowest' | 'newest';
  /** The exact version of each SDK package. */
  readonly versions: Readonly<Record<string, string>>;
}

/**
 * The two entries of the matrix from the published versions inside each
 * declared range (oldest first): every SDK at its lowest supported version,
 * then every SDK at its newest. Each entry covers both lines, so two runs
 * prove four versions.
 */
export function matrixEntries(published: Readonly<Record<string, readonly string[]>>): MatrixEntry[] {
  const pick = (which: 'first' | 'last'): Record<string, string> => {
    const versions: Record<string, string> = {};
    for (const sdk of SDK_PACKAGES) {
      const list = published[sdk] ?? [];
      const version = which === 'first' ? list[0] : list[list.length - 1];
      if (version === undefined) throw new Error(`no published version of ${sdk} inside its declared range`);
      versions[sdk] = version;
    }
    return versions;
  };
  return [
    { label: 'lowest', versions: pick('first') },
    { label: 'newest', versions: pick('last') },
  ];
}

/** The package a bare import specifier loads: `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`; `undefined` for relative and built-in ones. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (name === undefined || name === '' || builtinModules.includes(name)) return undefined;
  return name;
}

// Static `import`/`export ... from`, side-effect `import '...'` and dynamic `import('...')`;
// anchored to a statement's start so that the word "from" inside strings is not taken.
const IMPORTS = [
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)?\s*from\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** The specifiers a source file imports (static, type-only, dynamic and side-effect imports, and re-exports). */
export function importSpecifiers(source: string): Set<string> {
  const found = new Set<string>();
  for (const pattern of IMPORTS) for (const match of source.matchAll(pattern)) found.add(match[1] ?? '');
  found.delete('');
  return found;
}

/** The packages a source file imports (static, dynamic and side-effect imports). */
export function importedPackages(source: string): Set<string> {
  const found = new Set<string>();
  for (const specifier of importSpecifiers(source)) {
    const name = packageOfSpecifier(specifier);
    if (name !== undefined) found.add(name);
  }
  return found;
}

/** What a test that runs a README example file needs: the examples' own dependencies (express, hono), installed in the workspace only. */
export const EXAMPLES = 'the package examples';
const EXAMPLE_IMPORT = /from\s*['"]\.\.?\/(?:\.\.\/)*examples\//;

export interface SourcePlan {
  /** Test files to run, relative to the package directory. */
  readonly tests: readonly string[];
  /** Source files left out, with the package they need that the matrix does not install. */
  readonly skipped: readonly { readonly file: string; readonly needs: string }[];
  /** Third-party packages the kept files import (SDKs and `@ext/*` included). */
  readonly imports: ReadonlySet<string>;
}

/**
 * Which of a package's source files the matrix can run: those whose `@ext/*`
 * imports are all among `available` (the store packages need a native build
 * or a Redis server and are tested in the workspace instead), and that do
 * not run the package's README examples (tested in the workspace).
 */
export function planSources(packageDir: string, available: ReadonlySet<string>): SourcePlan {
  const tests: string[] = [];
  const skipped: { file: string; needs: string }[] = [];
  const imports = new Set<string>();
  const files = readdirSync(join(packageDir, 'src'), { recursive: true })
    .map((file) => `src/${String(file).split('\\').join('/')}`)
    .filter((file) => file.endsWith('.ts'))
    .sort();
  for (const file of files) {
    const source = readFileSync(join(packageDir, file), 'utf8');
    if (EXAMPLE_IMPORT.test(source)) {
      skipped.push({ file, needs: EXAMPLES });
      continue;
    }
    const used = importedPackages(source);
    const missing = [...used].find((name) => name.startsWith('@ext/') && !available.has(name));
    if (missing !== undefined) {
      skipped.push({ file, needs: missing });
      continue;
    }
    for (const name of used) imports.add(name);
    if (file.endsWith('.test.ts')) tests.push(file);
  }
  return { tests, skipped, imports };
}
