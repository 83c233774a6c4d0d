import { runConformance } from '@ext/conformance';
import { silentLogger } from '@ext/core/kit';
import { listen, type Listening } from '@ext/core/sdk-v2/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.js';
import { binOf } from './upstream/testing/servers.js';

/**
 * The 2026 run's key grants the scope the creating writes of the memory
 * server need, the 2025 run's does not: the kit must judge both callers right
 * (a write that runs for a caller whose key grants its scope is no missing
 * check; a write refused for want of a scope is no malformed-key verdict).
 */
const KEYS = {
  'key-for-the-2026-run-000': { principal: 'modern', scopes: ['graph:write'] },
  'key-for-the-2025-run-000': 'legacy',
};
/** Writes that need the scope besides `create_entities` (the deletions stay open: the confirmation suite calls them). */
const SCOPED = ['create_relations', 'add_observations'];

describe('@ext/conformance judges the gateway in front of the unmodified memory server', () => {
  let folder: string;
  let gateway: Gateway;
  let server: Listening;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gateway-conformance-'));
    gateway = await createGateway(
      {
        upstreams: {
          memory: {
            command: process.execPath,
            args: [binOf('@modelcontextprotocol/server-memory')],
            env: { MEMORY_FILE_PATH: join(folder, 'memory.json') },
          },
        },
        policy: {
          create_entities: {
            cost: { units: 1, unit: 'entities', quota: { limit: 1000, windowSeconds: 3600 } },
            provenance: { source: 'knowledge graph' },
            scopes: ['graph:write'],
          },
          ...Object.fromEntries(SCOPED.map((tool) => [tool, { scopes: ['graph:write'] }])),
        },
        store: { sqlite: join(folder, 'gateway.db') },
        identity: { apiKeys: KEYS },
      },
      { logger: silentLogger },
    );
    server = await listen(gateway.http, { port: 0 });
  });

  afterAll(async () => {
    await server.close();
    await gateway.close();
    rmSync(folder, { recursive: true, force: true });
  });

  // The scope checks' verdicts depend on the key: the one that grants graph:write runs create_entities
  // (PERM-9 cannot be judged, IDEM-4 can); the one that does not is refused (PERM-9 passes, IDEM-4 cannot be judged).
  it.each([
    [
      '2026-07-28',
      'key-for-the-2026-run-000',
      { 'permissions/scope-insufficient': 'skipped', 'idempotency/malformed-key-refused': 'passed' },
    ],
    [
      '2025-11-25',
      'key-for-the-2025-run-000',
      { 'permissions/scope-insufficient': 'passed', 'idempotency/malformed-key-refused': 'skipped' },
    ],
  ] as const)(
    'on %s: every advertised extension conforms',
    async (protocolVersion, key, verdicts) => {
      const outcome = await runConformance({
        target: { kind: 'http', url: server.url.href, headers: { authorization: `Bearer ${key}` } },
        protocolVersion,
        allowEffects: true,
      });
      const failed = outcome.results.filter((result) => result.status === 'failed' || result.status === 'error');
      expect(failed.map((result) => `${result.id}: ${result.message ?? ''}`)).toEqual([]);
      expect(outcome.exitCode).toBe(0);
      const status = (id: string): string | undefined => outcome.results.find((result) => result.id === id)?.status;
      expect(Object.fromEntries(Object.keys(verdicts).map((id) => [id, status(id)]))).toEqual(verdicts);
      const passed = new Set(outcome.results.filter((r) => r.status === 'passed').map((r) => r.extension));
      for (const extension of ['base', 'errors', 'confirmation', 'idempotency', 'cost', 'manifest']) {
        expect(passed).toContain(extension);
      }
    },
    240_000,
  );
});
