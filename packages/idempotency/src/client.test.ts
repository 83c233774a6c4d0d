import {
  ConfigurationError,
  type CallToolOptions,
  type ExtendedClient,
  type OutgoingCall,
  type ToolResult,
} from '@ext/core';
import { describe, expect, it } from 'vitest';
import { callIdempotent, getReplayInfo, idempotencyClient, idempotencyMeta, idempotentCall } from './client.js';
import { getIdempotencySettings } from './settings.js';
import { IDEMPOTENCY_ID } from './schema.js';

const NEGOTIATED = { id: IDEMPOTENCY_ID, settings: { version: '1.0' } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function outgoing(meta: Record<string, unknown> = {}): OutgoingCall {
  return { name: 'create', arguments: {}, meta };
}

async function prepared(
  extension = idempotencyClient(),
  call = outgoing(),
  negotiated: typeof NEGOTIATED | null = NEGOTIATED,
) {
  await extension.prepareCall?.(call, negotiated ?? undefined);
  return call.meta[IDEMPOTENCY_ID] as { idempotency_key: string; idempotency_ttl_seconds?: number } | undefined;
}

/** Just enough of an ExtendedClient to see what each attempt sends. */
function recordingClient(negotiated: boolean): {
  client: ExtendedClient;
  sent: (Record<string, unknown> | undefined)[];
} {
  const sent: (Record<string, unknown> | undefined)[] = [];
  const client = {
    negotiated: () => (negotiated ? NEGOTIATED : undefined),
    callTool: (_name: string, _args: Record<string, unknown>, options?: CallToolOptions): Promise<ToolResult> => {
      sent.push(options?.meta);
      return Promise.resolve({ content: [{ type: 'text', text: `attempt ${sent.length}` }] });
    },
  } as unknown as ExtendedClient;
  return { client, sent };
}

describe('idempotencyClient (IDEM-2)', () => {
  it('mints a UUID key per call when negotiated', async () => {
    const a = await prepared();
    const b = await prepared();
    expect(a?.idempotency_key).toMatch(UUID);
    expect(b?.idempotency_key).not.toBe(a?.idempotency_key);
  });

  it('sends nothing when the server did not negotiate the extension', async () => {
    expect(await prepared(idempotencyClient(), outgoing(), null)).toBeUndefined();
  });

  it('keeps a key the caller chose, and mints none when autoKey is off', async () => {
    expect(await prepared(idempotencyClient(), outgoing(idempotencyMeta('mine-1')))).toEqual({
      idempotency_key: 'mine-1',
    });
    expect(await prepared(idempotencyClient({ autoKey: false }))).toBeUndefined();
  });

  it('requests the configured TTL and uses the configured generator', async () => {
    const meta = await prepared(idempotencyClient({ ttlSeconds: 60, generateKey: () => 'fixed-key' }));
    expect(meta).toEqual({ idempotency_key: 'fixed-key', idempotency_ttl_seconds: 60 });
  });

  it('refuses bad options and bad generated keys with a ConfigurationError', async () => {
    expect(() => idempotencyClient({ ttlSeconds: 0 })).toThrow(ConfigurationError);
    expect(() => idempotencyClient({ generateKey: 'x' as unknown as () => string })).toThrow(/generateKey/);
    await expect(prepared(idempotencyClient({ generateKey: () => 'not valid' }))).rejects.toThrow(/idempotency key/);
    expect(() => idempotencyMeta('', 10)).toThrow(ConfigurationError);
    expect(() => idempotencyMeta('ok', 1.5)).toThrow(/ttlSeconds/);
  });
});

describe('one key across retries (IDEM-2)', () => {
  it('idempotentCall: every attempt carries the same key and keeps the caller meta', async () => {
    const { client, sent } = recordingClient(true);
    const attempt = idempotentCall(client, 'create', {}, { ttlSeconds: 30, meta: { other: 1 } });
    await attempt();
    await attempt();
    expect(attempt.key).toMatch(UUID);
    expect(sent).toEqual([
      { other: 1, [IDEMPOTENCY_ID]: { idempotency_key: attempt.key, idempotency_ttl_seconds: 30 } },
      { other: 1, [IDEMPOTENCY_ID]: { idempotency_key: attempt.key, idempotency_ttl_seconds: 30 } },
    ]);
  });

  it('callIdempotent hands the attempt to the retry function; without negotiation nothing is added', async () => {
    const negotiated = recordingClient(true);
    const result = await callIdempotent(
      negotiated.client,
      'create',
      {},
      {
        key: 'order-7',
        retry: async (attempt) => {
          await attempt();
          return attempt();
        },
      },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'attempt 2' }]);
    expect(negotiated.sent.map((meta) => meta?.[IDEMPOTENCY_ID])).toEqual([
      { idempotency_key: 'order-7' },
      { idempotency_key: 'order-7' },
    ]);

    const plain = recordingClient(false);
    await callIdempotent(plain.client, 'create');
    expect(plain.sent).toEqual([{}]);
    expect(() => idempotentCall(plain.client, 'create', {}, { key: 'bad key' })).toThrow(ConfigurationError);
  });
});

describe('reading what the server sent (IDEM-12, IDEM-16)', () => {
  it('getReplayInfo returns the entry, or undefined when absent or malformed', () => {
    const meta = { idempotency_key: 'k', was_replay: true, original_timestamp: '2026-03-15T00:00:00.000Z' };
    expect(getReplayInfo({ content: [], _meta: { [IDEMPOTENCY_ID]: meta } })).toEqual(meta);
    expect(getReplayInfo({ content: [] })).toBeUndefined();
    expect(getReplayInfo({ content: [], _meta: { [IDEMPOTENCY_ID]: { ...meta, was_replay: 'yes' } } })).toBeUndefined();
    expect(getReplayInfo(null)).toBeUndefined();
  });

  it('getIdempotencySettings reads the advertisement, ignores unknown fields and unknown majors', () => {
    const settings = { version: '1.3', default_ttl_seconds: 60, max_ttl_seconds: 600, future: true };
    expect(getIdempotencySettings({ [IDEMPOTENCY_ID]: settings })).toEqual(settings);
    expect(getIdempotencySettings({ [IDEMPOTENCY_ID]: { version: '2.0' } })).toBeUndefined();
    expect(getIdempotencySettings({})).toBeUndefined();
    expect(getIdempotencySettings('nope')).toBeUndefined();
  });
});
