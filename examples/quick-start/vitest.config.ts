// Tests: this package's vitest project, on the repository's shared settings.
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...sharedTestOptions,
    // The programs sit at the top of the package, and so does their test.
    include: ['*.test.ts'],
  },
});
