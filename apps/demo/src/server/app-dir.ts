/**
 * Where the files the app ships beside its code live (the registry index,
 * the default database, the built console): under the app's own directory,
 * the nearest one above this module that holds a package.json. The compiled
 * executables run from `dist/` and the tests from a folder of `src/`, at
 * another depth, so no fixed `../` reaches them from both.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError } from '@ext/core';

/** The app's own directory, looked up from `from` (default: this module); throws when no package.json is above it. */
export function appDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new ConfigurationError('APP_DIR_NOT_FOUND', `tracker: no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** A path under the app's own directory, e.g. `appFile('registry', 'servers.json')`. */
export function appFile(...segments: readonly string[]): string {
  return join(appDir(), ...segments);
}
