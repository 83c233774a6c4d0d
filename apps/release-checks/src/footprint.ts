// Bytes on disk of a package and of its dependency closure: what an install costs a user.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readManifest } from './workspace.js';

/**
 * Bytes of the files under `dir`, not following links. Nested `node_modules`
 * folders are left out unless `nested` (a package's own footprint vs a tree's).
 */
export function directoryBytes(dir: string, nested = false): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (nested || entry.name !== 'node_modules') total += directoryBytes(path, nested);
    } else if (entry.isFile()) {
      total += lstatSync(path).size;
    }
  }
  return total;
}

/** Where Node would find `name` from a package in `fromDir`. */
export function resolvePackageDir(fromDir: string, name: string): string | undefined {
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The directories of a package and of everything its `dependencies` and
 * `optionalDependencies` pull in, transitively (peers excluded: the host
 * brings them), as installed under some `node_modules`.
 */
export function dependencyClosure(packageDir: string): Set<string> {
  const seen = new Set<string>();
  const pending = [packageDir];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    const manifest = readManifest(join(dir, 'package.json'));
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = resolvePackageDir(dir, name);
      if (found !== undefined) pending.push(found);
    }
  }
  return seen;
}

/** Bytes of a set of package directories (each without its nested `node_modules`, counted on their own). */
export function closureBytes(dirs: Iterable<string>): number {
  let total = 0;
  for (const dir of dirs) total += directoryBytes(dir);
  return total;
}
