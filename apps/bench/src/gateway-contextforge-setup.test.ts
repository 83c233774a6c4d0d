// How the benchmark sets ContextForge up, as data (nothing here installs or starts it): the Python it accepts, its environment, its bridge's command line, and what it reads from its admin API.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  bridgeArgs,
  contextForgeEnv,
  isRecentEnough,
  parsePythonVersion,
  serverIdOf,
  toolIdOf,
  type ContextForgeSecrets,
} from './gateway-contextforge-setup.js';

const SECRETS: ContextForgeSecrets = {
  jwtSecret: 'jwt-secret',
  encryptionSecret: 'encryption-secret',
  adminPassword: 'admin-password',
  userPassword: 'user-password',
  basicAuthPassword: 'basic-password',
};

describe('the Python the virtual environment is made with', () => {
  it.each([
    ['3.11', false],
    ['3.12', true],
    ['3.13\n', true],
    ['4.0', true],
  ])('%j is recent enough: %s', (printed, expected) => {
    const version = parsePythonVersion(printed);
    expect(version).toBeDefined();
    expect(version !== undefined && isRecentEnough(version)).toBe(expected);
  });

  it('reads nothing from what a failing candidate prints', () => {
    expect(parsePythonVersion('pyenv: python3.13: command not found')).toBeUndefined();
  });
});

describe("ContextForge's environment", () => {
  it("keeps only PATH and HOME of the caller's, and states the secrets, the database and no Redis", () => {
    const env = contextForgeEnv('/state', SECRETS, {
      PATH: '/bin',
      HOME: '/home/bench',
      DATABASE_URL: 'postgresql://elsewhere',
      REDIS_URL: 'redis://elsewhere',
    });
    expect(env).toMatchObject({
      PATH: '/bin',
      HOME: '/home/bench',
      JWT_SECRET_KEY: SECRETS.jwtSecret,
      AUTH_ENCRYPTION_SECRET: SECRETS.encryptionSecret,
      DATABASE_URL: 'sqlite:////state/contextforge.db',
      CACHE_TYPE: 'database',
      RATE_LIMITING_REDIS_ENABLED: 'false',
    });
    expect(env.REDIS_URL).toBeUndefined();
  });
});

describe("the bridge's command line", () => {
  it('quotes the upstream command so that a shell splits it back into the same words', () => {
    const words = ['/opt/node js/bin/node', "/srv/it's/index.js", 'stdio'];
    const args = bridgeArgs({ command: words[0] ?? '', args: words.slice(1) }, 9000);
    const command = args[args.indexOf('--stdio') + 1] ?? '';
    const split = execFileSync('sh', ['-c', `printf '%s\\n' ${command}`], { encoding: 'utf8' });
    expect(split.trimEnd().split('\n')).toEqual(words);
  });
});

describe('what the benchmark reads from its admin API', () => {
  it('finds a tool id in a list or in a page of tools', () => {
    const tools = [
      { id: 'a1', name: 'everything-get-sum' },
      { id: 'b2', name: 'everything-echo' },
    ];
    expect(toolIdOf(tools, 'everything-echo')).toBe('b2');
    expect(toolIdOf({ items: tools }, 'everything-echo')).toBe('b2');
    expect(toolIdOf({ items: tools }, 'echo')).toBeUndefined();
    expect(toolIdOf({ detail: 'Unauthorized' }, 'everything-echo')).toBeUndefined();
  });

  it("reads a virtual server's id", () => {
    expect(serverIdOf({ id: 'd9d2', name: 'everything' })).toBe('d9d2');
    expect(serverIdOf({ detail: 'Forbidden' })).toBeUndefined();
  });
});
