// Tests: this package's vitest project, on the repository's shared settings.
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...sharedTestOptions,
    // Packs every publishable package once, for all the checks below.
    globalSetup: ['./vitest.setup.ts'],
    // The checks install and run whole projects: one file at a time keeps
    // them from starving each other (and the rest of `pnpm test`) of CPU.
    fileParallelism: false,
    // Inside a file, at most two `it.concurrent` tests at a time (the SDK matrix's nested runs): one per core.
    maxConcurrency: 2,
    // Installs, type checks and nested test runs on a loaded two-core CI machine.
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
