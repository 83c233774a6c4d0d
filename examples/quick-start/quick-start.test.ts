/**
 * The quick start runs as a new user runs it: the programs are compiled with
 * tsc, the server listens on a free port, and the client talks to it over
 * real HTTP, with a person's answer typed on its stdin. On SDK v2 and v1.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const PROGRAMS = ['server.ts', 'client.ts', 'server-v1.ts', 'client-v1.ts'];
const API_KEY = 'quick-start-test-key';
// Under dist/ (ignored), so the compiled programs resolve this package's dependencies and its "type": "module".
mkdirSync(join(HERE, 'dist'), { recursive: true });
const out = mkdtempSync(join(HERE, 'dist', 'run-'));
const running: ChildProcessWithoutNullStreams[] = [];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a program: this one's, without what the test runner set for itself. */
function programEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS' && !name.startsWith('VITEST')),
  );
  return { ...env, ...extra };
}

/** Runs a command to its end, feeding `input` on stdin; killed after a minute. */
function runToEnd(command: string, args: string[], env: Record<string, string>, input = ''): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: out, env: programEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a compiled server on a free port; resolves with its URL once it printed it. */
interface Tracker {
  readonly url: string;
  output(): string;
  /** Resolves with the exit code once the server exited. */
  readonly exited: Promise<number | null>;
  readonly process: ChildProcessWithoutNullStreams;
}

function startServer(file: string): Promise<Tracker> {
  const child = spawn(process.execPath, [join(out, file)], { cwd: out, env: programEnv({ PORT: '0', API_KEY }) });
  running.push(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${file} printed no URL in 30 s:\n${output}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, output: () => output, exited, process: child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${String(code)} before listening:\n${output}`));
    });
  });
}

beforeAll(async () => {
  // The programs alone, compiled with this package's settings.
  const tsconfig = {
    extends: join(HERE, 'tsconfig.json'),
    compilerOptions: { noEmit: false, outDir: out, rootDir: HERE, sourceMap: false, declaration: false },
    files: PROGRAMS.map((file) => join(HERE, file)),
    include: [],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(tsconfig));
  const compiled = await runToEnd(process.execPath, [TSC, '-p', join(out, 'tsconfig.json')], {});
  expect(compiled.stdout + compiled.stderr).toBe('');
}, 120_000);

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(out, { recursive: true, force: true });
});

describe.each([
  { line: 'v2', server: 'server.js', client: 'client.js' },
  { line: 'v1', server: 'server-v1.js', client: 'client-v1.js' },
])('the quick start on SDK $line', ({ server, client }) => {
  let tracker: Tracker;

  beforeAll(async () => {
    tracker = await startServer(server);
  }, 60_000);

  it('creates a ticket once for two sends with one key, deletes it after a yes, then reports it missing', async () => {
    const run = await runToEnd(process.execPath, [client], { MCP_URL: tracker.url, API_KEY }, 'y\n');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = /created (T-\d+): Printer on fire/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toContain('the replay of the first answer, created once');
    expect(run.stdout).toContain(`Delete ticket ${String(id)}? [y/N] Deleted ${String(id)} (Printer on fire).`);
    expect(run.stdout).toContain(`TICKET_NOT_FOUND (permanent): No ticket ${String(id)}`);
    // The server ran the create once and the delete once.
    expect(tracker.output().match(new RegExp(`created ${String(id)}\\b`, 'g'))).toHaveLength(1);
    expect(tracker.output().match(new RegExp(`deleted ${String(id)}\\b`, 'g'))).toHaveLength(1);
    // And printed nothing else: no warning reaches a new user.
    for (const line of tracker.output().trim().split('\n'))
      expect(line).toMatch(/^(ticket tracker listening on |created T-|deleted T-)/);
  });

  it('deletes nothing when the person says no', async () => {
    const run = await runToEnd(process.execPath, [client], { MCP_URL: tracker.url, API_KEY }, 'n\n');
    expect(run.code).toBe(0);
    const id = /created (T-\d+)/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toContain('not deleted: CONFIRMATION_DECLINED');
    expect(run.stdout).toContain(`still there: {"id":"${String(id)}","title":"Printer on fire"}`);
    expect(tracker.output()).not.toMatch(new RegExp(`deleted ${String(id)}\\b`));
  });

  it('refuses a caller without the API key', async () => {
    const run = await runToEnd(process.execPath, [client], { MCP_URL: tracker.url, API_KEY: 'wrong-key' });
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('created');
    expect(run.stderr).toMatch(/401|Unauthorized/i);
  });

  it('closes and exits on Ctrl-C', async () => {
    tracker.process.kill('SIGINT');
    expect(await tracker.exited).toBe(0);
  });
});
