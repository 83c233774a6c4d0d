import type { ExtensionSuite } from '../types.js';
import { baseSuite } from './base.js';
import { errorsSuite } from './errors.js';
import { idempotencySuite } from './idempotency.js';

/**
 * Every suite this kit ships, base first. Adding an extension: write
 * `checks/<name>.ts` exporting an `ExtensionSuite` whose checks cite the
 * numbered requirements of that package's SPEC.md, add it here, and plant a
 * violation of one of its MUSTs in the broken fixture server.
 */
export const ALL_SUITES: readonly ExtensionSuite[] = [baseSuite, errorsSuite, idempotencySuite];

export { baseSuite, errorsSuite, idempotencySuite };
