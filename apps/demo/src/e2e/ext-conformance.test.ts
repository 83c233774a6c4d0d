import { fileURLToPath } from 'node:url';
import { silentLogger } from '@ext/core/kit';
import { runConformance, type RunOutcome } from '@ext/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const STDIO = {
  kind: 'stdio' as const,
  command: process.execPath,
  args: [fileURLToPath(new URL('../../dist/stdio.js', import.meta.url))],
  // A throwaway database, whatever the environment says.
  env: { TRACKER_DB: ':memory:', REDIS_URL: '' },
};

function verdict(outcome: RunOutcome): string[] {
  return outcome.results
    .filter((result) => result.status === 'failed' || result.status === 'error')
    .map((result) => `${result.id}: ${result.message ?? ''}`);
}

describe('@ext/conformance judges the tracker', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger });
  });

  afterAll(async () => {
    await running.close();
  });

  // One user per era: each run uses exports, and a caller's export quota spans both eras.
  for (const [protocolVersion, user] of [
    ['2026-07-28', 'alice'],
    ['2025-11-25', 'bob'],
  ] as const) {
    it(`over Streamable HTTP on ${protocolVersion}: every advertised extension conforms`, async () => {
      const outcome = await runConformance({
        target: { kind: 'http', url: running.url.href, headers: { authorization: `Bearer ${running.tokens![user]}` } },
        protocolVersion,
        allowEffects: true,
      });
      expect(verdict(outcome)).toEqual([]);
      expect(outcome.exitCode).toBe(0);
      // Every extension the tracker composes has its suite run, and passing checks in it.
      const passed = new Set(
        outcome.results.filter((result) => result.status === 'passed').map((result) => result.extension),
      );
      for (const extension of [
        'errors',
        'streaming',
        'events',
        'manifest',
        'data-references',
        'multimodal',
        'discovery',
      ])
        expect(passed).toContain(extension);
    }, 300_000);
  }

  // Over stdio the kit starts a tracker process per connection, so one era only: the extensions' logic is the
  // same on both (the HTTP runs above prove them); this proves the stdio entry. On a loaded 2-CPU machine a
  // process start can take longer than the kit's default 30 s per check, which is about load, not conformance.
  it('over stdio on 2025-11-25: every advertised extension conforms', async () => {
    const outcome = await runConformance({
      target: STDIO,
      protocolVersion: '2025-11-25',
      allowEffects: true,
      timeoutMs: 120_000,
    });
    expect(verdict(outcome)).toEqual([]);
    expect(outcome.exitCode).toBe(0);
  }, 900_000);
});
