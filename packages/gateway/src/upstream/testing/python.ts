/**
 * Test support: the Python MCP servers from PyPI (`mcp-server-git`,
 * `mcp-server-time`, `mcp-server-fetch`), unmodified, in a virtual
 * environment of this package's own, installed from
 * `fixtures/python-upstreams.txt` (every package at an exact version) by
 * the core testing kit's `ensurePythonVenv`. The servers are started as
 * `python -m <module>`, which, unlike the console scripts, keeps working
 * in a moved environment.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePythonVenv, type InstalledPython, type PythonEnvironment } from '@ext/core/testing';
import type { StdioUpstream } from '../../config/schema.js';

const PACKAGE_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/** The pinned requirements. */
export const PYTHON_REQUIREMENTS = join(PACKAGE_DIR, 'fixtures', 'python-upstreams.txt');

/** Where the environment lives: ignored by git, the linters and the formatter like the rest of node_modules. */
export const PYTHON_VENV = join(PACKAGE_DIR, 'node_modules', '.cache', 'python-upstreams');

/** The Python module of each server (`python -m <module>`). */
export const PYTHON_SERVER_MODULES = {
  git: 'mcp_server_git',
  time: 'mcp_server_time',
  fetch: 'mcp_server_fetch',
} as const;

/** The environment, or why there is none. */
export type PythonUpstreams = PythonEnvironment;

/**
 * The environment, installed unless it already is for these requirements and
 * this interpreter. Throws when it cannot be built (no Python, no network).
 */
export function ensurePythonUpstreams(): Promise<InstalledPython> {
  return ensurePythonVenv({ requirements: PYTHON_REQUIREMENTS, venv: PYTHON_VENV });
}

/** A stdio upstream running one of the servers, unmodified, with `args` after the module. */
export function pythonUpstream(
  python: string,
  server: keyof typeof PYTHON_SERVER_MODULES,
  args: readonly string[] = [],
): StdioUpstream {
  return { command: python, args: ['-m', PYTHON_SERVER_MODULES[server], ...args] };
}
