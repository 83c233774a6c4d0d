import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

// The Python MCP servers some end-to-end tests start are installed once, before any test file runs.
export default defineProject({
  test: { ...sharedTestOptions, globalSetup: ['./src/upstream/testing/python-setup.ts'] },
});
