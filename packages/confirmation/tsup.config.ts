// Build: tsup writes the package's entry points as ESM with type declarations into dist/.
import { copyFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    server: 'src/server.ts',
    client: 'src/client.ts',
    'approvals/index': 'src/approvals/index.ts',
  },
  format: ['esm'],
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The JSON Schema of the wire payload ships beside the code; a test keeps src/schema.json generated.
  onSuccess: () => copyFile('src/schema.json', 'dist/schema.json'),
});
