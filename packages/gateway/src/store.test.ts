/** openStore against a real redis-server of this file's own: the config's `commandTimeoutMs` reaches the store. */
import { MemoryStore, StoreUnavailableError, type Logger } from '@ext/core';
import { redisServerUnavailable, startRedisServer } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { closeAfter, closeAfterEach } from './e2e/support.js';
import { openStore } from './store.js';

closeAfterEach();

const missing = redisServerUnavailable();

/** What `pending` has come to after `ms`: resolved, rejected, or still pending. */
async function settledWithin(pending: Promise<unknown>, ms: number): Promise<'pending' | 'resolved' | 'rejected'> {
  const timer = new Promise<'pending'>((resolve) => {
    setTimeout(() => {
      resolve('pending');
    }, ms);
  });
  return Promise.race([
    pending.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    timer,
  ]);
}

describe('openStore without a store', () => {
  it('keeps state in memory, and says so on the gateway logger', async () => {
    const warnings: string[] = [];
    const store = await openStore(undefined, {
      warn: (message) => {
        warnings.push(message);
      },
    });
    closeAfter(() => store.close());
    expect(store).toBeInstanceOf(MemoryStore);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('kept in memory');
    expect(warnings[0]).toContain('store.sqlite');
  });
});

describe.skipIf(missing !== undefined)(
  `openStore with a Redis${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('commandTimeoutMs from the config bounds each command: longer than the default waits, shorter fails transient, logged on the gateway logger', async () => {
      const redis = await startRedisServer();
      closeAfter(() => redis.close());
      const warnings: string[] = [];
      const logger: Logger = {
        warn: (message) => {
          warnings.push(message);
        },
      };
      const patient = await openStore({ redis: redis.url, commandTimeoutMs: 5_000 }, logger);
      const impatient = await openStore({ redis: redis.url, commandTimeoutMs: 50 }, logger);
      closeAfter(() => patient.close());
      closeAfter(() => impatient.close());
      await patient.set('k', 1);

      redis.freeze();
      const waiting = patient.get('k');
      // Past the 500 ms default, the patient store is still waiting for Redis.
      expect(await settledWithin(waiting, 1_000)).toBe('pending');
      const refused = await impatient.get('k').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(StoreUnavailableError.isInstance(refused)).toBe(true);
      // The outage is the gateway's to report, on its logger, once.
      expect(warnings).toEqual(['RedisStore: store unavailable']);
      redis.thaw();
      expect(await waiting).toBe(1);
    });

    it('keyPrefix from the config keeps deployments sharing one Redis apart; the same prefix shares state', async () => {
      const redis = await startRedisServer();
      closeAfter(() => redis.close());
      const open = async (keyPrefix: string | undefined) => {
        const store = await openStore({ redis: redis.url, ...(keyPrefix === undefined ? {} : { keyPrefix }) });
        closeAfter(() => store.close());
        return store;
      };
      const [billing, billingAgain, support, unprefixed] = await Promise.all([
        open('billing:'),
        open('billing:'),
        open('support:'),
        open(undefined),
      ]);
      await billing.set('idem:alice:write:k1', 'billing result');
      expect(await billingAgain.get('idem:alice:write:k1')).toBe('billing result');
      expect(await support.get('idem:alice:write:k1')).toBeUndefined();
      expect(await unprefixed.get('idem:alice:write:k1')).toBeUndefined();
      expect(await support.increment('quota:alice')).toBe(1);
      expect(await billing.increment('quota:alice')).toBe(1);
    });
  },
);
