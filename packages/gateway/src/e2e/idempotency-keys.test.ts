/**
 * What a host that knows none of our extensions gets from idempotency
 * through the gateway (README, "What a call goes through"): a retried write
 * that carries the first attempt's key runs once, though the host never
 * declared the extension; a retry without a key is a new call and runs again.
 */
import { join } from 'node:path';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { describe, expect, it } from 'vitest';
import {
  closeAfterEach,
  entitiesOnDisk,
  ERAS,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  tempDir,
  v1Client,
} from './support.js';

closeAfterEach();

const ADA = { name: 'ada', entityType: 'person', observations: ['wrote the first program'] };

async function memoryGateway(): Promise<{ readonly url: URL; readonly file: string }> {
  const file = join(await tempDir('idempotency'), 'memory.jsonl');
  const config = gatewayConfig({
    upstreams: { memory: memoryUpstream(file) },
    identity: { anonymous: true },
    store: 'memory',
  });
  return { url: (await serveGateway(config)).url, file };
}

const keyed = (key: string) => ({ [IDEMPOTENCY_ID]: { idempotency_key: key } });

/** One way a plain host calls a tool: the SDK v2 client on either era, or the SDK v1 client. */
type Call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => Promise<unknown>;

const HOSTS: readonly { readonly name: string; connect(url: URL): Promise<Call> }[] = [
  ...ERAS.map((era) => ({
    name: `a plain SDK v2 client (${era})`,
    async connect(url: URL): Promise<Call> {
      const sdk = await plainClient(url, era);
      return (name, args, meta) =>
        sdk.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) });
    },
  })),
  {
    name: 'a plain SDK v1 client',
    async connect(url: URL): Promise<Call> {
      const sdk = await v1Client(url);
      return (name, args, meta) =>
        sdk.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) });
    },
  },
];

function structured(result: unknown): unknown {
  return (result as { structuredContent?: unknown }).structuredContent;
}

function replayInfo(result: unknown): unknown {
  return (result as { _meta?: Record<string, unknown> })._meta?.[IDEMPOTENCY_ID];
}

describe.each(HOSTS)('$name, which declares no extension', (host) => {
  it('a retried write with the same idempotency key runs once upstream', async () => {
    const served = await memoryGateway();
    const call = await host.connect(served.url);
    const first = await call('create_entities', { entities: [ADA] }, keyed('retry-1'));
    const retried = await call('create_entities', { entities: [ADA] }, keyed('retry-1'));
    expect(structured(first)).toEqual({ entities: [ADA] });
    // Run again, server-memory would answer that it created nothing new: this is the first run's result.
    expect(structured(retried)).toEqual({ entities: [ADA] });
    expect(replayInfo(retried)).toMatchObject({ idempotency_key: 'retry-1', was_replay: true });
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it('a retry without a key is a new call and runs again', async () => {
    const served = await memoryGateway();
    const call = await host.connect(served.url);
    expect(structured(await call('create_entities', { entities: [ADA] }))).toEqual({ entities: [ADA] });
    const again = await call('create_entities', { entities: [ADA] });
    expect(structured(again)).toEqual({ entities: [] });
    expect(replayInfo(again)).toBeUndefined();
  });
});
