// Running a command for a check, bounded in time, with its output kept; scratch directories.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Kills the process (and fails) after this long. Default 5 minutes. */
  readonly timeoutMs?: number | undefined;
  /** Resolve with the exit code instead of rejecting on a non-zero exit. */
  readonly allowFailure?: boolean | undefined;
  readonly input?: string | undefined;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// Variables the runner (pnpm, turbo, vitest) sets for itself: a child npm,
// pnpm or vitest must not inherit them, or it would act as part of this run.
const INHERITED_PREFIXES = ['npm_', 'NPM_CONFIG_', 'PNPM_', 'pnpm_', 'TURBO_', 'VITEST', '__VITEST'];
const INHERITED_NAMES = new Set(['NODE_OPTIONS', 'NODE_ENV', 'INIT_CWD', 'TEST', 'TINYPOOL_WORKER_ID']);
// Kept on purpose: they point npm at the registry and cache the machine is set up with.
const KEPT_NAMES = new Set(['npm_config_cache', 'npm_config_registry', 'NPM_CONFIG_REGISTRY']);

/**
 * The environment for a child tool: this process's, minus what the runner
 * set for itself, plus quiet and non-interactive defaults.
 */
export function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    const inherited = INHERITED_NAMES.has(name) || INHERITED_PREFIXES.some((prefix) => name.startsWith(prefix));
    if (inherited && !KEPT_NAMES.has(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_loglevel: 'error',
    // A stalled registry request is dropped after 30 s and retried (npm's own
    // default waits five minutes on one stalled socket before retrying).
    npm_config_fetch_timeout: '30000',
    npm_config_fetch_retries: '5',
    npm_config_fetch_retry_mintimeout: '2000',
    npm_config_fetch_retry_maxtimeout: '20000',
    ...extra,
  };
}

/** The rejection of `run` when the command outlived its `timeoutMs` and was killed. */
export class TimedOut extends Error {
  override readonly name = 'TimedOut';
}

/** Runs a command to completion and collects its output. Rejects with the output on failure. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? childEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A child that exits before reading its input closes the pipe; its exit code tells what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result: RunResult = {
        code: code ?? 1,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      if (result.code === 0 || options.allowFailure === true) {
        resolvePromise(result);
        return;
      }
      const how =
        signal === null
          ? `exited with ${String(code)}`
          : `was killed (${signal}${signal === 'SIGKILL' ? `, timeout ${timeoutMs} ms` : ''})`;
      const message = `\`${command} ${args.join(' ')}\` in ${options.cwd} ${how}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
      reject(timedOut ? new TimedOut(message) : new Error(message));
    });
  });
}

function tail(text: string, lines = 80): string {
  return text.split('\n').slice(-lines).join('\n');
}

/**
 * A fresh directory under the OS temp folder. `remove()` deletes it unless
 * `RELEASE_CHECKS_KEEP_TEMP=1` (to inspect a failure).
 */
export function tempDir(prefix: string): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `mcp-ext-${prefix}-`));
  return {
    path,
    remove() {
      if (process.env.RELEASE_CHECKS_KEEP_TEMP === '1') return;
      rmSync(path, { recursive: true, force: true });
    },
  };
}
