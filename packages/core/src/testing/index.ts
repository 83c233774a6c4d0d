/** `@ext/core/testing`: test pairs on every SDK line and era, the store contract, seed schemas, a Redis server of the test's own and a pinned Python environment. */
import type { TestPair, TestPairOptions } from './pair.js';

export { TEST_LINES } from './pair.js';
export type { TestLine, TestPair, TestPairOptions } from './pair.js';
export { runStoreContract, type StoreContractHandle, type StoreContractOptions } from './store-contract.js';

/**
 * A connected client and server on the chosen SDK line and era, with the
 * given extensions on each side. v1 runs over the SDK's in-memory transport;
 * v2 runs over an in-process Streamable HTTP handler. Each SDK is loaded
 * only when its line is asked for.
 */
export async function createTestPair(options: TestPairOptions): Promise<TestPair> {
  if (options.line === 'v1') {
    const { createV1Pair } = await import('./sdk-v1-pair.js');
    return createV1Pair(options);
  }
  const { createV2Pair } = await import('./sdk-v2-pair.js');
  return createV2Pair(options);
}
export { SEED_SCHEMAS, seedValidators } from './seed.js';
export type { SeedCheck, SeedSchemaName, SeedValidators } from './seed.js';
export { redisServerUnavailable, startRedisServer } from './redis-server.js';
export type { RedisServerOptions, RedisServerProcess } from './redis-server.js';
export { RpcError, rawClient } from './raw-client.js';
export { ensurePythonVenv, failureOf, pythonGlobalSetup, venvPython } from './python-venv.js';
export type { InstalledPython, PythonEnvironment, PythonSetupOptions, PythonVenvOptions } from './python-venv.js';
export type { RawClient, RawClientOptions } from './raw-client.js';
