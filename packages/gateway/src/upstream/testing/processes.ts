/**
 * Test support: the upstream program of `upstream-process.ts`, compiled once
 * per test file and run as real child processes that a test kills
 * (`SIGKILL`), freezes (`SIGSTOP`, `SIGCONT`) and starts again on the same
 * port; and the calls each one logged as received.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The upstream program compiled with tsup for the calling test file (into a
 * folder of its own inside the package, so it finds the package's
 * dependencies); read `path` once the file's tests run.
 */
export function compiledUpstream(): { readonly path: string } {
  const compiled = { path: '' };
  beforeAll(async () => {
    const outDir = await mkdtemp(join(PACKAGE_DIR, 'node_modules', '.upstream-process-'));
    const { build } = await import('tsup');
    await build({
      config: false,
      entry: { 'upstream-process': join(PACKAGE_DIR, 'src', 'upstream', 'testing', 'upstream-process.ts') },
      format: ['esm'],
      target: 'node20',
      outDir,
      skipNodeModulesBundle: true,
      silent: true,
    });
    compiled.path = join(outDir, 'upstream-process.js');
  });
  afterAll(async () => {
    if (compiled.path !== '') await rm(join(compiled.path, '..'), { recursive: true, force: true });
  });
  return compiled;
}

export interface UpstreamProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Sends `signal` (`SIGSTOP`, `SIGCONT`, ...). */
  signal(signal: NodeJS.Signals): void;
  /** Kills it with `SIGKILL` and waits for it to be gone (its port is free again). */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** The file it logs each call it receives to (one line per call). */
  readonly log: string;
  /** Default: a free one. */
  readonly port?: number | undefined;
  /** Calls never return. */
  readonly hold?: boolean | undefined;
}

async function listeningUrl(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const url = /listening (\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => {
      reject(new Error(`the upstream process exited (${String(code)}) before serving: ${err}`));
    });
  });
}

/** Starts the compiled upstream program at `program`; kill it (or let `stopAll` do it) when done. */
export async function startUpstream(program: string, options: StartOptions): Promise<UpstreamProcess> {
  const args = [program, '--log', options.log, '--port', String(options.port ?? 0)];
  if (options.hold === true) args.push('--hold');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = await listeningUrl(child);
  const pid = child.pid ?? 0;
  return {
    url,
    port: Number(new URL(url).port),
    pid,
    signal: (signal) => {
      child.kill(signal);
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

const running = new Set<ChildProcess>();

/** Kills every upstream process still running (a frozen one included). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** The calls the upstream processes logging to `log` received, in order (`lookup <key>`, `append <text>`). */
export async function receivedCalls(log: string): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}
