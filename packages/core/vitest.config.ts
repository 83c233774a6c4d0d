// Tests: this package's vitest project, on the repository's shared settings. The examples import this
// package by its public names; in tests those resolve to the sources, so a recipe runs the code under test.
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { sharedTestOptions } from '../../vitest.shared.js';

const ENTRIES: Readonly<Record<string, string>> = {
  '@ext/core': 'index.ts',
  '@ext/core/kit': 'kit/index.ts',
  '@ext/core/http': 'http/index.ts',
  '@ext/core/sdk-v1': 'sdk-v1/index.ts',
  '@ext/core/sdk-v2': 'sdk-v2/index.ts',
  '@ext/core/sdk-v2/server': 'sdk-v2/server.ts',
  '@ext/core/sdk-v2/client': 'sdk-v2/client.ts',
};

export default defineProject({
  resolve: {
    alias: Object.entries(ENTRIES).map(([entry, file]) => ({
      find: new RegExp(`^${entry.replaceAll('/', '\\/')}$`),
      replacement: fileURLToPath(new URL(`./src/${file}`, import.meta.url)),
    })),
  },
  test: sharedTestOptions,
});
