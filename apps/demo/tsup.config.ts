// Build: tsup writes the package's entry points as ESM with type declarations into dist/.
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: [
      'src/http.ts',
      'src/stdio.ts',
      'src/stdio-v1.ts',
      'src/tour.ts',
      'src/conformance-server.ts',
      'src/sheets-http.ts',
    ],
    format: ['esm'],
    // A private app: nothing imports its types.
    dts: false,
    // Not `clean`: both builds write under dist/ at once.
    clean: false,
    sourcemap: true,
    target: 'node20',
  },
  {
    // The web console: one browser bundle (the MCP client included) plus its static files.
    entry: { app: 'console/app.ts' },
    outDir: 'dist/console',
    publicDir: 'console/public',
    format: ['esm'],
    platform: 'browser',
    noExternal: [/.*/],
    splitting: false,
    dts: false,
    clean: true,
    sourcemap: true,
    minify: true,
    target: 'es2022',
  },
]);
