import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from './config/errors.js';
import { createGateway } from './gateway.js';

describe('createGateway checks a config built in code as loadConfig checks a file (GW-1)', () => {
  it('refuses a bad field before it starts anything, naming it', async () => {
    const bad = {
      upstreams: { files: { command: 'node' } },
      identity: { apiKeys: { 'has spaces in it, 16+': 'alice' } },
    };
    const refused: unknown = await createGateway(bad as never).catch((error: unknown) => error);
    expect(GatewayConfigError.isInstance(refused)).toBe(true);
    expect((refused as GatewayConfigError).message).toMatch(/identity\.apiKeys/);
  });
});
