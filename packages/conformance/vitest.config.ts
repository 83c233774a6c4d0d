// Tests: this package's vitest project, on the repository's shared settings.
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...sharedTestOptions,
    // Each run starts several stdio servers of the fixture; on a loaded CI machine that takes minutes, not seconds.
    testTimeout: 300_000,
  },
});
