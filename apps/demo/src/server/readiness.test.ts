/**
 * `/healthz` and `/readyz` on the demo HTTP server: readiness follows the
 * store's optional `health()`, with a store that lacks it counted ready and
 * one that throws or hangs counted not ready.
 */
import { MemoryStore, type Logger, type Store, type StoreHealth } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from './node-http.js';
import { checkReadiness } from './readiness.js';

/** A memory store whose health answers as `health` says, or that has none (`undefined`). */
function storeWith(health: (() => Promise<StoreHealth>) | undefined): Store {
  return Object.assign(new MemoryStore(), { health });
}

const hang = (): Promise<StoreHealth> =>
  new Promise(() => {
    // Never settles: a store frozen behind its connection.
  });

function capture(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return { logger: { warn: (message) => warnings.push(message) }, warnings };
}

describe('checkReadiness', () => {
  it('counts a store without health() as ready', async () => {
    await expect(checkReadiness(storeWith(undefined), silentLogger)).resolves.toMatchObject({
      status: 'ready',
      store: { ok: true },
    });
  });

  it("follows the store's answer", async () => {
    await expect(
      checkReadiness(
        storeWith(() => Promise.resolve({ ok: true, detail: 'file' })),
        silentLogger,
      ),
    ).resolves.toEqual({
      status: 'ready',
      store: { ok: true, detail: 'file' },
    });
    await expect(
      checkReadiness(
        storeWith(() => Promise.resolve({ ok: false, detail: 'read-only' })),
        silentLogger,
      ),
    ).resolves.toEqual({
      status: 'unavailable',
      store: { ok: false, detail: 'read-only' },
    });
  });

  it('counts a throw as not ready, logs it and does not show it', async () => {
    const { logger, warnings } = capture();
    const answer = await checkReadiness(
      storeWith(() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:6379'))),
      logger,
    );
    expect(answer).toEqual({ status: 'unavailable', store: { ok: false, detail: 'the store health check failed' } });
    expect(JSON.stringify(answer)).not.toContain('10.0.0.7');
    expect(warnings).toHaveLength(1);
  });

  it('counts a check slower than the bound as not ready', async () => {
    const started = Date.now();
    const answer = await checkReadiness(storeWith(hang), silentLogger, 50);
    expect(answer.status).toBe('unavailable');
    expect(answer.store.detail).toContain('50 ms');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('/healthz and /readyz over HTTP', () => {
  let running: RunningHttpServer | undefined;

  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('answers 200 ready, and liveness, with no credentials', async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger });
    const ready = await fetch(new URL('/readyz', running.url));
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toMatchObject({ status: 'ready', store: { ok: true } });
    const live = await fetch(new URL('/healthz', running.url));
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const head = await fetch(new URL('/readyz', running.url), { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers 503 unavailable when the store says so, throws, or takes over a second, while liveness stays 200', async () => {
    for (const health of [() => Promise.resolve({ ok: false }), () => Promise.reject(new Error('gone')), hang]) {
      running = await startHttpServer({ port: 0, logger: silentLogger, store: storeWith(health) });
      const ready = await fetch(new URL('/readyz', running.url));
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', store: { ok: false } });
      expect((await fetch(new URL('/healthz', running.url))).status).toBe(200);
      await running.close();
      running = undefined;
    }
  });

  it('answers 405 to other methods', async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger });
    const response = await fetch(new URL('/readyz', running.url), { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
