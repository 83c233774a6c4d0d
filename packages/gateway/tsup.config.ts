// Build: tsup writes the library and the CLI as ESM with type declarations into dist/.
import { copyFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The config's JSON Schema ships beside the code; a test keeps src/config/gateway.schema.json generated.
  onSuccess: () => copyFile('src/config/gateway.schema.json', 'dist/gateway.schema.json'),
});
