/** A deployment's own server halves, composed with the gateway's where their placement puts them (GW-55). */
import { ConfigurationError, MemoryStore, type ServerExtension } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../gateway.js';
import { serveV2 } from '../upstream/testing/servers.js';
import { closeAfter, closeAfterEach, gatewayConfig } from './support.js';

closeAfterEach();

function own(name: string, stage: ServerExtension['stage'], seen: string[] = []): ServerExtension {
  return {
    side: 'server',
    name,
    ids: [`com.example/${name}`],
    settings: { version: '1.0' },
    stage,
    middleware: (call, _ctx, next) => {
      seen.push(call.name);
      return next();
    },
  };
}

async function gatewayWith(extensions: readonly ServerExtension[]) {
  const upstream = await serveV2();
  closeAfter(() => upstream.close());
  const config = gatewayConfig({
    upstreams: { notes: { url: upstream.url, protocol: '2026-07-28', timeoutMs: 5000 } },
    store: 'memory',
  });
  const gateway = await createGateway(config, { store: new MemoryStore(), logger: silentLogger, extensions });
  closeAfter(() => gateway.close());
  return gateway;
}

describe('GatewayOptions.extensions (GW-55)', () => {
  it('places each half where it says among the gateway own stages', async () => {
    const gateway = await gatewayWith([own('shaper', { before: 'confirmation' }), own('audit', { after: 'errors' })]);
    const order = gateway.composed.pipeline.map((entry) => entry.extension);
    expect(order.slice(0, 2)).toEqual(['@ext/errors', 'audit']);
    expect(order.indexOf('shaper')).toBe(order.indexOf('@ext/confirmation') - 1);
  });

  it('refuses to start with a half the composition refuses, saying why', async () => {
    const refusal = await gatewayWith([own('second-errors', 'errors')]).catch((error: unknown) => error);
    expect(ConfigurationError.isInstance(refusal)).toBe(true);
    expect((refusal as ConfigurationError).message).toMatch(
      /second-errors and @ext\/errors both claim the errors stage/,
    );
  });
});
