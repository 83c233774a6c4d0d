import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  // A private app: nothing imports its types.
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
