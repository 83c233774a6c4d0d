/**
 * Vitest global setup: the Python MCP servers' environment, installed before
 * any test file runs (idempotent, and quick once installed), and handed to the
 * tests as `inject('pythonUpstreams')`. With `CI` set a failure to install
 * fails the run; elsewhere the tests that need Python skip, saying why.
 */
import type { TestProject } from 'vitest/node';
import { ensurePythonUpstreams, failureOf, type PythonUpstreams } from './python.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pythonUpstreams: PythonUpstreams;
  }
}

export async function setup(project: TestProject): Promise<void> {
  let upstreams: PythonUpstreams;
  try {
    const installed = await ensurePythonUpstreams();
    if (installed.installedInMs !== undefined) {
      console.error(`python upstreams: installed in ${(installed.installedInMs / 1000).toFixed(1)} s`);
    }
    upstreams = installed;
  } catch (error) {
    const reason = `the Python MCP servers could not be installed (${failureOf(error)})`;
    if (process.env.CI) throw new Error(`${reason}; CI needs them`, { cause: error });
    console.error(`python upstreams: ${reason}: the tests that start them skip`);
    upstreams = { unavailable: reason };
  }
  project.provide('pythonUpstreams', upstreams);
}
