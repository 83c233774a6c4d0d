import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { isPublicAddress, nonPublicReason, sendWebhook, webhookSecretKey, webhookSigner } from './index.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real receiver answering `statuses` in order (then 200), recording each request's headers and body. */
async function receiver(statuses: number[], location?: string) {
  const seen: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = statuses.shift() ?? 200;
      response.writeHead(status, location === undefined ? {} : { location }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`, seen };
}

const config = { fetch: globalThis.fetch, timeoutMs: 5000, attempts: 3, now: Date.now, backoffMs: 5 };

describe('@ext/core/webhooks', () => {
  it('signs so that standardwebhooks verifies, and retries a 503 under the same webhook-id', async () => {
    const hook = await receiver([503]);
    const outcome = await sendWebhook(
      { url: hook.url, signer: webhookSigner(SECRET), headers: { 'x-extra': 'yes' } },
      '{"a":1}',
      config,
      'evt_1',
    );
    expect(outcome).toEqual({ delivered: true, messageId: 'evt_1', attempts: 2, status: 200 });
    expect(hook.seen.map((request) => request.headers['webhook-id'])).toEqual(['evt_1', 'evt_1']);
    for (const request of hook.seen) {
      expect(() => new Webhook(SECRET).verify(request.body, request.headers)).not.toThrow();
      expect(request.headers['x-extra']).toBe('yes');
    }
  });

  it('a 4xx is final, attempts run out on 5xx, and a redirect is not followed', async () => {
    const refused = await receiver([400]);
    expect(await sendWebhook({ url: refused.url, signer: webhookSigner(SECRET) }, '{}', config)).toMatchObject({
      delivered: false,
      attempts: 1,
      status: 400,
      retryable: false,
    });
    const failing = await receiver([500, 502, 503]);
    expect(await sendWebhook({ url: failing.url, signer: webhookSigner(SECRET) }, '{}', config)).toMatchObject({
      delivered: false,
      attempts: 3,
      status: 503,
      retryable: true,
    });
    const target = await receiver([]);
    const redirecting = await receiver([307], target.url);
    const outcome = await sendWebhook({ url: redirecting.url, signer: webhookSigner(SECRET) }, '{}', config);
    expect(outcome).toMatchObject({ delivered: false, status: 307 });
    expect(target.seen).toHaveLength(0);
  });

  it('beforeAttempt refuses an attempt as final, and nothing is sent', async () => {
    const hook = await receiver([]);
    const outcome = await sendWebhook({ url: hook.url, signer: webhookSigner(SECRET) }, '{}', {
      ...config,
      beforeAttempt: nonPublicReason,
    });
    expect(outcome).toMatchObject({ delivered: false, attempts: 1, retryable: false });
    expect(outcome.delivered ? '' : outcome.reason).toContain('127.0.0.1 is not a public address');
    expect(hook.seen).toHaveLength(0);
  });

  it('classifies addresses and secrets', async () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      // The same, as the URL parser writes it, and spelled out.
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:a00:1',
      '[::ffff:c0a8:101]',
      '0.0.0.0',
      'localhost',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of [
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
      '[2606:4700::1111]',
      '::ffff:5db8:d822',
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    expect(await nonPublicReason(new URL('https://[::1]/x'))).toContain('not a public address');
    expect(await nonPublicReason(new URL('https://[::ffff:127.0.0.1]/x'))).toContain('not a public address');
    expect(await nonPublicReason(new URL('https://93.184.216.34/x'))).toBeUndefined();
    expect(webhookSecretKey(SECRET)?.length).toBe(32);
    expect(webhookSecretKey('whsec_c2hvcnQ=')).toBeUndefined();
    expect(webhookSecretKey('secret')).toBeUndefined();
    expect(webhookSecretKey(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBeUndefined();
  });
});
