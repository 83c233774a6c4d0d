// Tests: this package's vitest project, on the repository's shared settings.
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

export default defineProject({ test: sharedTestOptions });
