/**
 * Vitest global setup: the Python MCP servers' environment, installed before
 * any test file runs (idempotent, and quick once installed), and handed to the
 * tests as `inject('pythonUpstreams')`. With `CI` set a failure to install
 * fails the run; elsewhere the tests that need Python skip, saying why.
 */
import { pythonGlobalSetup } from '@ext/core/testing';
import type { TestProject } from 'vitest/node';
import { PYTHON_REQUIREMENTS, PYTHON_VENV, type PythonUpstreams } from './python.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pythonUpstreams: PythonUpstreams;
  }
}

export const setup = pythonGlobalSetup({
  requirements: PYTHON_REQUIREMENTS,
  venv: PYTHON_VENV,
  label: 'python upstreams',
  holds: 'the Python MCP servers',
  provide: (project: TestProject, upstreams) => {
    project.provide('pythonUpstreams', upstreams);
  },
});
