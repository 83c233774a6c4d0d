/**
 * Test support: the Python MCP servers from PyPI (`mcp-server-git`,
 * `mcp-server-time`, `mcp-server-fetch`), unmodified, in a virtual
 * environment of this package's own, installed from
 * `fixtures/python-upstreams.txt` (every package at an exact version).
 *
 * The environment is built beside its final place and moved there whole,
 * with a marker naming the requirements and the interpreter it was built
 * from: a second run with the same ones finds it and returns at once; a
 * changed file or interpreter builds it again. The servers are started as
 * `python -m <module>`, which, unlike the console scripts, keeps working
 * in a moved environment.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { StdioUpstream } from '../../config/schema.js';

const run = promisify(execFile);

const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/** The pinned requirements. */
export const PYTHON_REQUIREMENTS = join(PACKAGE_DIR, 'fixtures', 'python-upstreams.txt');

/** Where the environment lives: ignored by git, the linters and the formatter like the rest of node_modules. */
export const PYTHON_VENV = join(PACKAGE_DIR, 'node_modules', '.cache', 'python-upstreams');

const MARKER = 'installed-from.txt';

/** The Python module of each server (`python -m <module>`). */
export const PYTHON_SERVER_MODULES = {
  git: 'mcp_server_git',
  time: 'mcp_server_time',
  fetch: 'mcp_server_fetch',
} as const;

export interface InstalledPython {
  /** The environment's interpreter. */
  readonly python: string;
  /** How long this call took to install it; absent when it was already installed. */
  readonly installedInMs?: number | undefined;
}

/** The environment, or why there is none. */
export type PythonUpstreams = InstalledPython | { readonly unavailable: string };

function venvPython(venv: string): string {
  return process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
}

/** The interpreter that builds the environment: `PYTHON`, else `python3`; its version and path go into the marker. */
async function baseInterpreter(): Promise<{ readonly command: string; readonly identity: string }> {
  const command = process.env.PYTHON ?? 'python3';
  const { stdout } = await run(command, [
    '-c',
    'import sys; assert sys.version_info >= (3, 10), "the servers need Python 3.10 or later"; print(sys.executable, sys.version)',
  ]);
  return { command, identity: stdout.trim() };
}

async function markerOf(venv: string): Promise<string | undefined> {
  return readFile(join(venv, MARKER), 'utf8').catch(() => undefined);
}

/** Whether the interpreter's own pip can install into another environment (`--python`, pip 22.3 and later). */
async function pipTargetsOthers(interpreter: string): Promise<boolean> {
  try {
    const { stdout } = await run(interpreter, ['-m', 'pip', '--version']);
    const [major = 0, minor = 0] = (/^pip (\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number);
    return major > 22 || (major === 22 && minor >= 3);
  } catch {
    return false;
  }
}

/**
 * Builds the environment in `staging`, the marker last, once all is there.
 * Where the interpreter's own pip can install into it, the environment gets
 * no pip of its own (seeding one is most of a venv's cost); the servers'
 * modules are compiled when first imported, not all of them at install.
 */
async function build(staging: string, interpreter: string, marker: string): Promise<void> {
  const external = await pipTargetsOthers(interpreter);
  await run(interpreter, ['-m', 'venv', ...(external ? ['--without-pip'] : []), staging]);
  const [pip, target] = external ? [interpreter, ['--python', venvPython(staging)]] : [venvPython(staging), []];
  const install = ['install', '--disable-pip-version-check', '--no-input', '--quiet', '--no-compile', '--retries', '2'];
  await run(pip, ['-m', 'pip', ...target, ...install, '-r', PYTHON_REQUIREMENTS], { maxBuffer: 16 * 1024 * 1024 });
  await writeFile(join(staging, MARKER), marker);
}

/**
 * The environment, installed unless it already is for these requirements and
 * this interpreter. Throws when it cannot be built (no Python, no network).
 */
export async function ensurePythonUpstreams(): Promise<InstalledPython> {
  const base = await baseInterpreter();
  const requirements = await readFile(PYTHON_REQUIREMENTS, 'utf8');
  const marker = createHash('sha256').update(requirements).update('\n').update(base.identity).digest('hex');
  if ((await markerOf(PYTHON_VENV)) === marker && existsSync(venvPython(PYTHON_VENV))) {
    return { python: venvPython(PYTHON_VENV) };
  }
  const started = Date.now();
  await mkdir(join(PYTHON_VENV, '..'), { recursive: true });
  const staging = `${PYTHON_VENV}.${randomUUID()}`;
  try {
    await build(staging, base.command, marker);
    // Another run may have finished the same environment meanwhile: keep the one in place then.
    if ((await markerOf(PYTHON_VENV)) !== marker) {
      await rm(PYTHON_VENV, { recursive: true, force: true });
      await rename(staging, PYTHON_VENV);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { python: venvPython(PYTHON_VENV), installedInMs: Date.now() - started };
}

/** A stdio upstream running one of the servers, unmodified, with `args` after the module. */
export function pythonUpstream(
  python: string,
  server: keyof typeof PYTHON_SERVER_MODULES,
  args: readonly string[] = [],
): StdioUpstream {
  return { command: python, args: ['-m', PYTHON_SERVER_MODULES[server], ...args] };
}

/** What went wrong, in one line: a failed command's last line of stderr, or the error's message. */
export function failureOf(error: unknown): string {
  const stderr = (error as { stderr?: unknown } | null)?.stderr;
  const said = typeof stderr === 'string' ? stderr.trim().split('\n').at(-1) : undefined;
  return said !== undefined && said !== '' ? said : error instanceof Error ? error.message : String(error);
}
