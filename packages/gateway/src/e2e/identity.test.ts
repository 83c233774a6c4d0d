/**
 * Callers identified by API key, over HTTP on both eras: a key that grants
 * the scope a policy requires runs the tool upstream; a key naming only a
 * principal, or a key the gateway does not know, does not.
 */
import { errorsClient } from '@ext/errors/client';
import { describe, expect, it } from 'vitest';
import { serveV2 } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  ERAS,
  errorOf,
  gatewayConfig,
  serveGateway,
  textOf,
} from './support.js';

closeAfterEach();

const WRITER_KEY = 'key-for-ada-0123456789abcdef';
const READER_KEY = 'key-for-the-reporting-job-0001';

async function scopedGateway() {
  const upstream = await serveV2();
  closeAfter(() => upstream.close());
  const config = gatewayConfig({
    upstreams: { notes: { url: upstream.url, protocol: '2026-07-28', timeoutMs: 5000 } },
    policy: { echo: { scopes: ['notes:write'] } },
    identity: {
      apiKeys: { [WRITER_KEY]: { principal: 'ada', scopes: ['notes:write'] }, [READER_KEY]: 'reporting' },
    },
    store: 'memory',
  });
  return serveGateway(config);
}

describe('API keys that grant scopes (GW-12)', () => {
  it.each(ERAS)(
    'the key granting the scope runs the tool; a key without it is refused, naming it (%s)',
    async (era) => {
      const served = await scopedGateway();
      const writer = await connectClient(served.url, {
        era,
        extensions: [errorsClient()],
        headers: { authorization: `Bearer ${WRITER_KEY}` },
      });
      expect(textOf(await writer.client.callTool('echo', { text: 'from ada' }))).toBe('from ada');

      const reader = await connectClient(served.url, {
        era,
        extensions: [errorsClient()],
        headers: { 'x-api-key': READER_KEY },
      });
      const refused = errorOf(await reader.client.callTool('echo', { text: 'from the job' }));
      expect(refused.code).toBe('SCOPE_INSUFFICIENT');
      expect(JSON.stringify(refused)).toContain('notes:write');
    },
  );

  it('a key the gateway does not know is refused before any tool is listed', async () => {
    const served = await scopedGateway();
    const refused = await connectClient(served.url, {
      era: 'modern',
      extensions: [errorsClient()],
      headers: { authorization: 'Bearer key-nobody-was-given-0000' },
    })
      .then(({ client }) => client.listTools())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(String(refused)).toMatch(/401|unauthori[sz]ed/i);
  });
});
