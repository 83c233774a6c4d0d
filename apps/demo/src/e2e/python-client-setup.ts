/**
 * Vitest global setup: the official Python MCP SDK, in a virtual environment
 * of this app's own installed from `fixtures/python-client.txt` (every
 * package at an exact version), before any test file runs (idempotent, and
 * quick once installed), handed to the tests as `inject('pythonClient')`.
 * With `CI` set a failure to install fails the run; elsewhere the tests that
 * need Python skip, saying why.
 */
import { fileURLToPath } from 'node:url';
import { pythonGlobalSetup, type PythonEnvironment } from '@ext/core/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pythonClient: PythonEnvironment;
  }
}

export const setup = pythonGlobalSetup({
  requirements: fileURLToPath(new URL('../../fixtures/python-client.txt', import.meta.url)),
  // Ignored by git, the linters and the formatter like the rest of node_modules.
  venv: fileURLToPath(new URL('../../node_modules/.cache/python-client', import.meta.url)),
  label: 'python client',
  holds: 'the Python MCP SDK',
  provide: (project: TestProject, environment) => {
    project.provide('pythonClient', environment);
  },
});
