/**
 * Faults of a real upstream process behind the pool: killed (SIGKILL) mid-call
 * and started again on the same port, frozen (SIGSTOP, SIGCONT), slow; the
 * retries a call may have, and the breaker that stops calls reaching an
 * upstream that keeps failing. The upstream logs each call it receives, so
 * what reached it is counted there, not guessed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExtensionError } from '@ext/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpUpstream } from '../config/schema.js';
import { UpstreamPool } from './pool.js';
import type { BreakerState } from './resilience.js';
import type { CallSafety } from './retry-decision.js';
import { compiledUpstream, receivedCalls, startUpstream, stopAll, type UpstreamProcess } from './testing/processes.js';
import { recordingLogger } from './testing/servers.js';

const program = compiledUpstream();
const clientInfo = { name: 'gateway-test', version: '0.0.0' };
const READ_ONLY: CallSafety = { readOnly: true, idempotencyKey: false, policy: undefined };

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'gateway-resilience-'));
});
const pools: UpstreamPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await stopAll();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let logs = 0;
/** A log file of its own for the upstream processes of one test. */
function newLog(): string {
  logs += 1;
  return join(scratch, `calls-${String(logs)}.log`);
}

async function pooled(upstream: HttpUpstream): Promise<UpstreamPool> {
  const pool = await UpstreamPool.connect({ api: upstream }, { logger: recordingLogger(), clientInfo });
  pools.push(pool);
  return pool;
}

/** The error `promise` rejects with, which must be an `ExtensionError`. */
async function rejection(promise: Promise<unknown>): Promise<ExtensionError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ExtensionError.isInstance(error)) throw new Error(`expected an ExtensionError, got ${String(error)}`);
  return error;
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.text ?? '';
}

/** Resolves once the upstream logging to `log` has received `count` calls. */
async function whenReceived(log: string, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      expect((await receivedCalls(log)).length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 30_000, interval: 50 },
  );
}

/** Kills `upstream` and starts it again on the same port, answering this time. */
async function restart(upstream: UpstreamProcess, log: string): Promise<UpstreamProcess> {
  await upstream.kill();
  return startUpstream(program.path, { log, port: upstream.port });
}

describe.each(['2025-11-25', '2026-07-28'] as const)('an upstream killed mid-call (%s)', (protocol) => {
  /**
   * Retries enough to outlast the restart, so a call retried that should not
   * be reaches the new process; a deadline long enough that a call left
   * waiting for its dropped answer fails the test.
   */
  const upstream = (url: string): HttpUpstream => ({
    url,
    protocol,
    timeoutMs: 30_000,
    retry: { attempts: 10, maxDelayMs: 1000 },
    breaker: { failures: 50 },
  });

  it('fails a write at once as transient, and never sends it again, even once the upstream is back', async () => {
    const log = newLog();
    const held = await startUpstream(program.path, { log, hold: true });
    const pool = await pooled(upstream(held.url));
    const write = rejection(pool.call('append', { text: 'order-1' }));
    await whenReceived(log, 1);
    const back = await restart(held, log);

    const error = await write;
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toContain('Upstream "api" is unavailable');
    expect(error.toStructured().retry_after_seconds).toBeGreaterThan(0);

    // The upstream is back: the next call reaches it, and the write was received once only.
    expect(text(await pool.call('lookup', { key: 'after' }))).toBe('found after');
    expect(await receivedCalls(log)).toEqual(['append order-1', 'lookup after']);
    await back.kill();
  });

  it('retries a read-only call until the upstream is back on the same port, and it is answered', async () => {
    const log = newLog();
    const held = await startUpstream(program.path, { log, hold: true });
    const pool = await pooled(upstream(held.url));
    let retries = 0;
    pool.observe({ retried: () => (retries += 1) });
    const read = pool.call('lookup', { key: 'k1' }, { safety: READ_ONLY });
    await whenReceived(log, 1);
    await restart(held, log);

    expect(text(await read)).toBe('found k1');
    // Received by the killed process, then by the new one.
    expect(await receivedCalls(log)).toEqual(['lookup k1', 'lookup k1']);
    expect(retries).toBeGreaterThan(0);
  });
});

describe('an upstream frozen (SIGSTOP) while a write is sent', () => {
  it('times the write out as transient and does not send it again; after SIGCONT calls are answered', async () => {
    const log = newLog();
    const upstream = await startUpstream(program.path, { log });
    const pool = await pooled({ url: upstream.url, protocol: '2026-07-28', timeoutMs: 3000 });
    expect(text(await pool.call('lookup', { key: 'before' }))).toBe('found before');

    upstream.signal('SIGSTOP');
    const error = await rejection(pool.call('append', { text: 'frozen' }));
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_TIMEOUT' });
    upstream.signal('SIGCONT');

    await vi.waitFor(
      async () => {
        expect(text(await pool.call('lookup', { key: 'thawed' }))).toBe('found thawed');
      },
      { timeout: 30_000, interval: 200 },
    );
    // The frozen process may have read the write once it thawed; it was never sent twice.
    const writes = (await receivedCalls(log)).filter((line) => line === 'append frozen');
    expect(writes.length).toBeLessThanOrEqual(1);
  });
});

describe('a slow upstream', () => {
  it('answers a call within its deadline, and a read-only call past it is not retried past the deadline', async () => {
    const log = newLog();
    const upstream = await startUpstream(program.path, { log });
    const pool = await pooled({ url: upstream.url, protocol: '2026-07-28', timeoutMs: 1500 });
    let retries = 0;
    pool.observe({ retried: () => (retries += 1) });
    expect(text(await pool.call('lookup', { key: 'quick', delayMs: 100 }, { safety: READ_ONLY }))).toBe('found quick');

    const error = await rejection(pool.call('lookup', { key: 'slow', delayMs: 5000 }, { safety: READ_ONLY }));
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_TIMEOUT' });
    // Its deadline (`timeoutMs`, all tries together) was spent: safe to repeat, but not tried again.
    expect(retries).toBe(0);
    expect((await receivedCalls(log)).filter((line) => line === 'lookup slow')).toHaveLength(1);
  });
});

describe('the breaker of an upstream that keeps failing', () => {
  it('opens after N failures, refuses calls at once without reaching the upstream, and closes after a probe', async () => {
    const log = newLog();
    const first = await startUpstream(program.path, { log });
    const halfOpenAfterMs = 8000;
    const pool = await pooled({
      url: first.url,
      protocol: '2026-07-28',
      retry: { attempts: 1 },
      breaker: { failures: 3, halfOpenAfterMs },
    });
    const states: BreakerState[] = [];
    pool.observe({ breakerState: (_upstream, state) => states.push(state) });
    await first.kill();

    for (let failure = 0; failure < 3; failure += 1) {
      const error = await rejection(pool.call('lookup', { key: 'down' }, { safety: READ_ONLY }));
      expect(error.details).not.toHaveProperty('breaker');
    }
    expect(pool.breakerState('api')).toBe('open');

    // Back up, but the open breaker keeps calls away from it until its delay is over.
    await startUpstream(program.path, { log, port: first.port });
    const refused = await rejection(pool.call('lookup', { key: 'while-open' }, { safety: READ_ONLY }));
    expect(refused).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(refused.details).toMatchObject({ upstream: 'api', breaker: 'open' });
    expect(refused.details?.last_error).toContain('Upstream "api" is unavailable');
    const retryAfter = refused.toStructured().retry_after_seconds ?? 0;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(halfOpenAfterMs / 1000);
    expect(await receivedCalls(log)).toEqual([]);

    // Once the delay is over, one call is let through; it is answered and the breaker closes.
    await vi.waitFor(
      async () => {
        expect(text(await pool.call('lookup', { key: 'probe' }, { safety: READ_ONLY }))).toBe('found probe');
      },
      { timeout: 40_000, interval: 500 },
    );
    expect(pool.breakerState('api')).toBe('closed');
    expect(states).toEqual(['open', 'half_open', 'closed']);
    expect(await receivedCalls(log)).toEqual(['lookup probe']);
  });
});
