import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/http.ts', 'src/stdio.ts', 'src/tour.ts', 'src/conformance-server.ts'],
  format: ['esm'],
  // A private app: nothing imports its types.
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
