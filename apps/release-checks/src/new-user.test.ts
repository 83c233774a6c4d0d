/**
 * The new user: someone who reads the root README, installs what its quick
 * start names from the registry, pastes its server and client, and runs
 * them. The four packages it uses come from their packed tarballs; for each
 * SDK line a fresh npm project outside the workspace installs them with that
 * SDK, zod, TypeScript and Node's types, takes the README's blocks verbatim,
 * type-checks them strictly, compiles them, starts the server on a free port
 * and runs the client, answering the confirmation question with "y".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startProgram, type Started } from './background.js';
import { npmInstall, writeProject } from './npm.js';
import { tarballDependencies } from './pack.js';
import { exampleBlock } from './readme-examples.js';
import { childEnv, run, tempDir } from './run.js';
import { installedVersion, workspaceRoot } from './workspace.js';

const APP_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = workspaceRoot();
const CORE_DIR = join(ROOT, 'packages', 'core');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const OURS = ['@ext/core', '@ext/errors', '@ext/idempotency', '@ext/confirmation'];
const API_KEY = 'new-user-check-key';

const packed = inject('packed');

/**
 * The settings `tsc --init` writes with the README's flags (strict,
 * noUncheckedIndexedAccess, exactOptionalPropertyTypes, verbatimModuleSyntax,
 * ...), and stricter still: the declarations of every installed package are
 * checked too. `lib` stays at its default, as `tsc --init` leaves it (the
 * v1 SDK's declarations name DOM's `HeadersInit`).
 */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: 'force',
    skipLibCheck: false,
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
};

const LINES = [
  {
    line: 'v2',
    sdk: ['@modelcontextprotocol/server', '@modelcontextprotocol/client'],
    server: 'examples/quick-start/server.ts',
    client: 'examples/quick-start/client.ts',
  },
  {
    line: 'v1',
    sdk: ['@modelcontextprotocol/sdk'],
    server: 'examples/quick-start/server-v1.ts',
    client: 'examples/quick-start/client-v1.ts',
  },
];

it('the root README shows a server and a client for each SDK line, each under its example marker', () => {
  for (const { server, client } of LINES) {
    expect(exampleBlock(README, server)).toMatch(/await listen\(/);
    expect(exampleBlock(README, client)).toMatch(/await client\.connect\(/);
  }
});

type Line = (typeof LINES)[number];

/** Installs the quick start's packages with `setup`'s SDK into `dir`, and pastes the README's blocks into `src/`. */
async function prepareProject(setup: Line, dir: string): Promise<void> {
  const dependencies: Record<string, string> = {};
  Object.assign(dependencies, tarballDependencies(packed, OURS));
  for (const name of setup.sdk) dependencies[name] = installedVersion(CORE_DIR, name);
  dependencies.zod = installedVersion(APP_DIR, 'zod');
  writeProject(dir, `new-user-${setup.line}`, {
    dependencies,
    devDependencies: {
      typescript: installedVersion(ROOT, 'typescript'),
      '@types/node': installedVersion(ROOT, '@types/node'),
    },
  });
  await npmInstall(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'server.ts'), exampleBlock(README, setup.server));
  writeFileSync(join(dir, 'src', 'client.ts'), exampleBlock(README, setup.client));
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
}

const projects = new Map(LINES.map((setup) => [setup.line, tempDir(`new-user-${setup.line}`)]));
const prepared = new Map<string, Promise<void>>();

function projectDir(setup: Line): string {
  const project = projects.get(setup.line);
  if (project === undefined) throw new Error(`no project for SDK ${setup.line}`);
  return project.path;
}

/**
 * The project of `setup`'s line, once installed. The first call starts the
 * installs of every line side by side (they wait on the registry and the
 * disk more than on the CPU); each line's tests wait for their own.
 */
function preparedProject(setup: Line): Promise<void> {
  if (prepared.size === 0) {
    for (const line of LINES) {
      const install = prepareProject(line, projectDir(line));
      // Awaited by that line's tests; until then its failure must not count as unhandled.
      install.catch(() => undefined);
      prepared.set(line.line, install);
    }
  }
  return prepared.get(setup.line) ?? Promise.reject(new Error(`no project for SDK ${setup.line}`));
}

afterAll(async () => {
  await Promise.allSettled(prepared.values());
  for (const project of projects.values()) project.remove();
});

describe.each(LINES)('a new user on SDK $line, pasting the root README into a fresh project', (setup) => {
  const dir = projectDir(setup);
  let server: Started | undefined;

  beforeAll(() => preparedProject(setup), 600_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('type-checks strictly (NodeNext, noUncheckedIndexedAccess, exactOptionalPropertyTypes, declarations included) and compiles', async () => {
    const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, allowFailure: true });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs: the create is idempotent, the delete waits for the "y", an unknown ticket is a structured error', async () => {
    server = await startProgram(process.execPath, ['dist/server.js'], {
      cwd: dir,
      env: { PORT: '0', API_KEY },
      ready: /listening on (http:\/\/\S+)/,
    });
    const url = server.ready[1] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = await run(process.execPath, ['dist/client.js'], {
      cwd: dir,
      env: childEnv({ MCP_URL: url, API_KEY }),
      input: 'y\n',
      timeoutMs: 60_000,
    });
    expect(client.stderr).toBe('');
    const id = /^created (T-\d+): Printer on fire$/m.exec(client.stdout)?.[1] ?? 'no ticket';
    expect(client.stdout).toMatch(/the replay of the first answer, created once/);
    expect(client.stdout).toContain(`Delete ticket ${id}? [y/N] Deleted ${id} (Printer on fire).`);
    expect(client.stdout).toContain(`TICKET_NOT_FOUND (permanent): No ticket ${id}`);

    // The server's own account: the ticket was created once and deleted once.
    const log = server.output();
    expect(log.match(new RegExp(`^created ${id}$`, 'gm'))).toHaveLength(1);
    expect(log.match(new RegExp(`^deleted ${id}$`, 'gm'))).toHaveLength(1);
    // And nothing else, on stdout or stderr: no warning reaches a new user.
    for (const line of log.trim().split('\n'))
      expect(line).toMatch(/^(ticket tracker listening on |created T-|deleted T-)/);
  });
});
