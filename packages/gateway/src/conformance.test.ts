import { runConformance } from '@ext/conformance';
import { silentLogger } from '@ext/core';
import { listen, type Listening } from '@ext/core/sdk-v2/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.js';
import { binOf } from './upstream/testing/servers.js';

const KEYS = { 'key-for-the-2026-run-000': 'modern', 'key-for-the-2025-run-000': 'legacy' };

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
          },
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

  it.each([
    ['2026-07-28', 'key-for-the-2026-run-000'],
    ['2025-11-25', 'key-for-the-2025-run-000'],
  ] as const)(
    'on %s: every advertised extension conforms',
    async (protocolVersion, key) => {
      const outcome = await runConformance({
        target: { kind: 'http', url: server.url.href, headers: { authorization: `Bearer ${key}` } },
        protocolVersion,
        allowEffects: true,
      });
      const failed = outcome.results.filter((result) => result.status === 'failed' || result.status === 'error');
      expect(failed.map((result) => `${result.id}: ${result.message ?? ''}`)).toEqual([]);
      expect(outcome.exitCode).toBe(0);
      const passed = new Set(outcome.results.filter((r) => r.status === 'passed').map((r) => r.extension));
      for (const extension of ['base', 'errors', 'confirmation', 'idempotency', 'cost', 'manifest']) {
        expect(passed).toContain(extension);
      }
    },
    240_000,
  );
});
