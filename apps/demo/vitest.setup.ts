// Global set-up of the demo's tests: compiles the programs they run.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The stdio server, the HTTP binary and the tour are tested as the compiled
 * programs a user runs, so compile them first: a stale `dist/` would test
 * yesterday's code.
 */
export function setup(): void {
  const packageDir = dirname(fileURLToPath(import.meta.url));
  const tsupPackage = createRequire(import.meta.url).resolve('tsup/package.json');
  const result = spawnSync(process.execPath, [join(dirname(tsupPackage), 'dist', 'cli-default.js'), '--silent'], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`building the demo failed (exit ${String(result.status)}):\n${result.stdout}${result.stderr}`);
  }
}
