import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    include: ['src/**/*.test.ts'],
    // The stdio server and the tour run as compiled child processes.
    globalSetup: ['./vitest.setup.ts'],
    testTimeout: 30_000,
  },
});
