/**
 * Test support for servers in a child process (a crash is a `kill -9` of a
 * real process): this package's sources are transpiled (types stripped) into
 * its node_modules/.cache, where `@ext/core`, the stores and the SDK resolve
 * as usual, since Node 20 cannot load TypeScript; a fixture program from
 * `src/testing/` then runs with plain `node`, reporting on stdout one JSON
 * event per line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = join(packageRoot, 'src');
// One directory per test file (each loads this module afresh), so one file's cleanup never removes another's.
const cacheDir = join(packageRoot, 'node_modules', '.cache', 'tasks-tests', `${process.pid}-${randomUUID()}`);

let compiled: Promise<void> | undefined;

/** Writes the JavaScript of every non-test source of `dir` (relative to src) into the cache. */
async function transpileDir(dir: string): Promise<void> {
  await mkdir(join(cacheDir, dir), { recursive: true });
  const names = await readdir(join(sourceDir, dir));
  for (const name of names.filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))) {
    const source = await readFile(join(sourceDir, dir, name), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    await writeFile(join(cacheDir, dir, name.replace(/\.ts$/, '.js')), outputText);
  }
}

/** The path of the transpiled fixture `src/testing/<name>.ts` (sources compiled once per test file). */
export async function fixtureProgram(name: string): Promise<string> {
  compiled ??= transpileDir('.').then(() => transpileDir('testing'));
  await compiled;
  return join(cacheDir, 'testing', `${name}.js`);
}

/** Removes what `fixtureProgram` compiled (an `afterAll`). */
export async function removeCompiled(): Promise<void> {
  if (compiled) await rm(cacheDir, { recursive: true, force: true });
  compiled = undefined;
}

/** A fixture program running in its own process. */
export interface ChildServer {
  /** Where it serves (its `listening` event). */
  readonly url: string;
  readonly pid: number;
  /** Every JSON event it printed so far, in order. */
  readonly events: readonly Record<string, unknown>[];
  /** Kills it with SIGKILL (no cleanup runs in it) and resolves once it is gone. */
  kill(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
}

/** Collects the child's stdout as JSON events, one a line. */
function readEvents(child: ChildProcess, events: Record<string, unknown>[], onEvent: () => void): void {
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((text) => text.trim() !== '')) {
      events.push(JSON.parse(line) as Record<string, unknown>);
      onEvent();
    }
  });
}

/**
 * Starts the fixture `program` with `config` (JSON, its only argument) and
 * resolves once it printed `{"event":"listening","url":...}`; rejects when it
 * exits first, with what it wrote on stderr.
 */
export function startChild(program: string, config: Record<string, unknown>): Promise<ChildServer> {
  const child = spawn(process.execPath, [program, JSON.stringify(config)], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const kill = async () => {
    child.kill('SIGKILL');
    await exited(child);
  };
  return new Promise((resolve, reject) => {
    readEvents(child, events, () => {
      const listening = events.find((event) => event.event === 'listening');
      if (listening !== undefined) resolve({ url: String(listening.url), pid: child.pid ?? 0, events, kill });
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      reject(new Error(`the fixture exited (${String(code ?? signal)}) before listening: ${stderr}`));
    });
  });
}
