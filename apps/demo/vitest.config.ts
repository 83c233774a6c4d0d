// Tests: this package's vitest project, on the repository's shared settings.
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...sharedTestOptions,
    // The stdio server and the tour run as compiled child processes; the Python SDK's client drives the tracker.
    globalSetup: ['./vitest.setup.ts', './src/e2e/python-client-setup.ts'],
  },
});
