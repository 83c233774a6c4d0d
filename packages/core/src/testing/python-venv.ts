/**
 * A Python virtual environment for tests, installed from a requirements
 * file that pins every package at an exact version.
 *
 * The environment is built beside its final place and moved there whole,
 * with a marker naming the requirements and the interpreter it was built
 * from: a second run with the same ones finds it and returns at once; a
 * changed file or interpreter builds it again. Programs in it should be
 * started as `python -m <module>`, which, unlike the console scripts, keeps
 * working in a moved environment.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const MARKER = 'installed-from.txt';

export interface PythonVenvOptions {
  /** The pinned requirements file (`pip install -r`). */
  readonly requirements: string;
  /** Where the environment lives; a package's `node_modules/.cache/<name>` keeps it out of git, the linters and the formatter. */
  readonly venv: string;
}

export interface InstalledPython {
  /** The environment's interpreter. */
  readonly python: string;
  /** How long this call took to install it; absent when it was already installed. */
  readonly installedInMs?: number | undefined;
}

/** The environment, or why there is none. */
export type PythonEnvironment = InstalledPython | { readonly unavailable: string };

/** The interpreter of the environment at `venv`. */
export function venvPython(venv: string): string {
  return process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
}

/** The interpreter that builds the environment: `PYTHON`, else `python3`; its version and path go into the marker. */
async function baseInterpreter(): Promise<{ readonly command: string; readonly identity: string }> {
  const command = process.env.PYTHON ?? 'python3';
  const { stdout } = await run(command, [
    '-c',
    'import sys; assert sys.version_info >= (3, 10), "the environment needs Python 3.10 or later"; print(sys.executable, sys.version)',
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
 * no pip of its own (seeding one is most of a venv's cost); modules are
 * compiled when first imported, not all of them at install.
 */
async function build(staging: string, interpreter: string, requirements: string, marker: string): Promise<void> {
  const external = await pipTargetsOthers(interpreter);
  await run(interpreter, ['-m', 'venv', ...(external ? ['--without-pip'] : []), staging]);
  const [pip, target] = external ? [interpreter, ['--python', venvPython(staging)]] : [venvPython(staging), []];
  const install = ['install', '--disable-pip-version-check', '--no-input', '--quiet', '--no-compile', '--retries', '2'];
  await run(pip, ['-m', 'pip', ...target, ...install, '-r', requirements], { maxBuffer: 16 * 1024 * 1024 });
  await writeFile(join(staging, MARKER), marker);
}

/**
 * The environment, installed unless it already is for these requirements and
 * this interpreter. Throws when it cannot be built (no Python, no network).
 */
export async function ensurePythonVenv(options: PythonVenvOptions): Promise<InstalledPython> {
  const { venv } = options;
  const base = await baseInterpreter();
  const requirements = await readFile(options.requirements, 'utf8');
  const marker = createHash('sha256').update(requirements).update('\n').update(base.identity).digest('hex');
  if ((await markerOf(venv)) === marker && existsSync(venvPython(venv))) return { python: venvPython(venv) };
  const started = Date.now();
  await mkdir(dirname(venv), { recursive: true });
  const staging = `${venv}.${randomUUID()}`;
  try {
    await build(staging, base.command, options.requirements, marker);
    // Another run may have finished the same environment meanwhile: keep the one in place then.
    if ((await markerOf(venv)) !== marker) {
      await rm(venv, { recursive: true, force: true });
      await rename(staging, venv);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { python: venvPython(venv), installedInMs: Date.now() - started };
}

/** What went wrong, in one line: a failed command's last line of stderr, or the error's message. */
export function failureOf(error: unknown): string {
  const stderr = (error as { stderr?: unknown } | null)?.stderr;
  const said = typeof stderr === 'string' ? stderr.trim().split('\n').at(-1) : undefined;
  return said !== undefined && said !== '' ? said : error instanceof Error ? error.message : String(error);
}

export interface PythonSetupOptions<Project> extends PythonVenvOptions {
  /** Prefixes what the setup prints, e.g. `python upstreams`. */
  readonly label: string;
  /** What the environment holds, in a sentence: `the Python MCP servers` ("… could not be installed"). */
  readonly holds: string;
  /** Hands the environment, or why there is none, to the tests (`project.provide(key, environment)`). */
  readonly provide: (project: Project, environment: PythonEnvironment) => void;
}

/**
 * A vitest global setup (`export const setup = pythonGlobalSetup({...})`):
 * the environment, installed before any test file runs (idempotent, and
 * quick once installed), handed to the tests through `provide`. With `CI`
 * set a failure to install fails the run; elsewhere the tests that need
 * Python should skip, saying the reason they are given.
 */
export function pythonGlobalSetup<Project>(options: PythonSetupOptions<Project>): (project: Project) => Promise<void> {
  return async (project) => {
    let environment: PythonEnvironment;
    try {
      const installed = await ensurePythonVenv(options);
      if (installed.installedInMs !== undefined) {
        console.error(`${options.label}: installed in ${(installed.installedInMs / 1000).toFixed(1)} s`);
      }
      environment = installed;
    } catch (error) {
      const reason = `${options.holds} could not be installed (${failureOf(error)})`;
      if (process.env.CI) throw new Error(`${reason}; CI needs them`, { cause: error });
      console.error(`${options.label}: ${reason}: the tests that start them skip`);
      environment = { unavailable: reason };
    }
    options.provide(project, environment);
  };
}
