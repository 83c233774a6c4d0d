#!/usr/bin/env node
/**
 * `pnpm test`: sets up what the end-to-end tests need, then runs every
 * check, the formatter first. On a Debian or Ubuntu machine where it may install packages (root,
 * or password-less sudo) it installs Chromium and redis-server; it starts a
 * throwaway Redis on a free loopback port unless `REDIS_URL` names one, and
 * stops it afterwards. Elsewhere it says what is missing and which test
 * files therefore skip their cases. With `CI` set, anything missing is an error.
 *
 * The tests then run a second time on Node 24 (the active LTS; the first
 * pass runs on the machine's Node), all but the release checks (see
 * `testOnNode24`). `TEST_NODE24=0` skips that pass.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { node24Binary, node24Home } from '../tools/node24/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What the tests use from the machine, the Debian package that provides it, and how a test file shows it needs it. */
const TOOLS = [
  { name: 'Chromium', debian: 'chromium', present: () => existsSync(CHROMIUM), marker: /CHROMIUM_PATH/ },
  {
    name: 'redis-server',
    debian: 'redis-server',
    present: () => onPath('redis-server'),
    marker: /REDIS_URL|redis-server/,
  },
];

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function say(line) {
  console.error(`test: ${line}`);
}

/** `sudo` when needed and allowed without a password; `undefined` when packages cannot be installed here. */
function installer() {
  if (!onPath('apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo'];
  return undefined;
}

function installMissing() {
  const missing = TOOLS.filter((tool) => !tool.present());
  const prefix = installer();
  if (missing.length === 0 || prefix === undefined) return;
  const packages = missing.map((tool) => tool.debian);
  say(`installing ${packages.join(', ')} from Debian's packages`);
  const apt = (...args) => {
    const [command, ...rest] = [...prefix, 'apt-get', ...args];
    execFileSync(command, rest, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  try {
    apt('update', '-qq');
    apt('install', '-y', '-qq', ...packages);
  } catch (error) {
    say(`could not install ${packages.join(', ')}: ${error.message.split('\n')[0]}`);
  }
}

/** Redis's port for the tests when it is free: the same REDIS_URL from run to run lets turbo reuse test results. */
const PREFERRED_REDIS_PORT = 6390;

/** Binds `port` (0: any) on loopback and gives it back; `undefined` when it is taken. */
function tryPort(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = server.address().port;
      server.close(() => resolve(bound));
    });
  });
}

async function freePort() {
  return (await tryPort(PREFERRED_REDIS_PORT)) ?? (await tryPort(0));
}

/** Resolves once Redis answers PING on `port`, or rejects after about five seconds. */
async function waitForRedis(port) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answered = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
}

/** A throwaway Redis for this run (nothing saved to disk), unless `REDIS_URL` is set or there is no redis-server. */
async function startRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: () => {} };
  if (!onPath('redis-server')) return undefined;
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await waitForRedis(port);
  say(`Redis for the tests on 127.0.0.1:${port}`);
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/** Test files that mention `marker` (they skip their cases when what it names is not there). */
function testsUsing(marker) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.test\.ts$/.test(entry.name) && marker.test(readFileSync(path, 'utf8')))
        found.push(relative(ROOT, path));
    }
  };
  for (const top of ['packages', 'apps']) walk(join(ROOT, top));
  return found.sort();
}

function run(command, args, env) {
  return spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env }).status ?? 1;
}

/** The environment that makes `node`, and native addon builds, Node 24's. */
function node24Env(env) {
  return { ...env, PATH: `${dirname(node24Binary)}${delimiter}${env.PATH ?? ''}`, npm_config_nodedir: node24Home };
}

/**
 * The tests again on Node 24 (the SQLite store loads the better-sqlite3
 * build that fits the running Node, so nothing is rebuilt). `--force`:
 * turbo's cache does not know which Node ran a task. The release checks
 * run once, in the first pass: they install scratch projects from the npm
 * registry (a quarter of an hour, most of it waiting on the network) to
 * check what is packed and which SDK versions it accepts, which does not
 * depend on the Node that runs the workspace's own tests.
 */
function testOnNode24(env) {
  if (process.env.TEST_NODE24 === '0') return 0;
  if (node24Binary === undefined || process.versions.node.startsWith('24.')) {
    say(
      node24Binary === undefined
        ? 'no Node 24 for this platform (@ext/node24): the Node 24 pass is skipped'
        : 'already on Node 24: no second pass',
    );
    return 0;
  }
  say(`the tests again on Node ${spawnSync(node24Binary, ['--version']).stdout.toString().trim()}`);
  return run(
    'pnpm',
    ['exec', 'turbo', 'run', 'test', '--force', '--concurrency=3', '--filter=!@ext/release-checks'],
    node24Env(env),
  );
}

async function main() {
  for (const check of [
    'scripts/check-packages.mjs',
    'scripts/check-changesets.mjs',
    'scripts/check-readme-examples.mjs',
  ]) {
    if (run(process.execPath, [check], process.env) !== 0) return 1;
  }
  if (run('pnpm', ['run', '--silent', 'format:check'], process.env) !== 0) {
    say('some files are not formatted: run `pnpm format`');
    return 1;
  }
  installMissing();
  const missing = TOOLS.filter((tool) => !tool.present());
  if (missing.length > 0 && process.env.CI) {
    say(
      `missing in CI: ${missing.map((tool) => tool.name).join(', ')}; install ${missing.map((tool) => tool.debian).join(' ')}`,
    );
    return 1;
  }
  const redis = await startRedis();
  try {
    const env = { ...process.env, ...(redis === undefined ? {} : { REDIS_URL: redis.url }) };
    const first = run('pnpm', ['exec', 'turbo', 'run', 'typecheck', 'lint', 'test', 'check', '--concurrency=3'], env);
    const status = first === 0 ? testOnNode24(env) : first;
    for (const tool of missing) {
      say(
        `${tool.name} is not installed (Debian package ${tool.debian}); these test files skipped the cases that need it:`,
      );
      for (const file of testsUsing(tool.marker)) console.error(`  ${file}`);
    }
    return status;
  } finally {
    redis?.stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
