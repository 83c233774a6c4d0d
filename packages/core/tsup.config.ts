// Build: tsup writes the package's entry points as ESM with type declarations into dist/.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/kit/index.ts',
    'src/http/index.ts',
    'src/sdk-v1/index.ts',
    'src/sdk-v2/index.ts',
    'src/sdk-v2/server.ts',
    'src/sdk-v2/client.ts',
    'src/oauth/index.ts',
    'src/webhooks/index.ts',
    'src/testing/index.ts',
    'src/testing/seed.ts',
  ],
  format: ['esm'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: false,
  sourcemap: true,
  target: 'node20',
});
