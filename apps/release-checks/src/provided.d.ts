// What the global set-up hands the release checks' tests (`inject('packed')`).
import type {} from 'vitest';
import type { PackedPackage } from './pack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every publishable package, packed by `pnpm pack` from its current `dist/` (see vitest.setup.ts). */
    packed: PackedPackage[];
  }
}
