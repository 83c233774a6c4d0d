// Build: tsup writes the package's entry points as ESM with type declarations into dist/.
import { defineConfig } from 'tsup';

export default defineConfig({
  // The benchmark servers run in their own processes.
  entry: [
    'src/main.ts',
    'src/http-server.ts',
    'src/transfer-server.ts',
    'src/sessions-main.ts',
    'src/sessions-server.ts',
    'src/gateway-main.ts',
    'src/profile-main.ts',
    'src/gateway-server.ts',
    'src/gateway-upstream.ts',
    'src/gateway-relay.ts',
    'src/contention-main.ts',
    'src/contention-server.ts',
    'src/in-process-main.ts',
    'src/compare-main.ts',
  ],
  format: ['esm'],
  // A private app: nothing imports its types.
  dts: false,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
