import { silentLogger } from '@ext/core/kit';
import { type ExtendedServer } from '@ext/core';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { getPermissionsSettings, negotiateScopes, permissionsClient, summarize } from './client.js';
import { PERMISSIONS_ID } from './index.js';
import { permissionsServer } from './server.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const open: TestPair[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

function setup(server: ExtendedServer): void {
  const input = z.object({ id: z.string() });
  server.registerTool('get_ticket', { inputSchema: input }, () => ({ content: [{ type: 'text', text: 'ticket' }] }));
  server.registerTool(
    'delete_ticket',
    { inputSchema: input, _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:delete'] } } },
    () => ({ content: [{ type: 'text', text: 'deleted' }] }),
  );
}

function deprecatedNames(spy: { mock: { calls: unknown[][] } }): (string | undefined)[] {
  return spy.mock.calls.map(([message]) => /"(\w+)" is deprecated/.exec(String(message))?.[1]);
}

describe('deprecated snake_case spellings (0.1)', () => {
  it('PERM-6: scopes declared with auto_grant are still granted on negotiation, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const pair = await createTestPair({
      line: 'v1',
      serverExtensions: [
        permissionsServer({
          scopes: [
            { name: 'tickets:read', description: 'read tickets', tools: ['get_ticket'], auto_grant: true },
            { name: 'tickets:list', description: 'list tickets', tools: [], auto_grant: true },
            { name: 'tickets:delete', description: 'delete tickets', tools: [] },
          ],
        }),
      ],
      clientExtensions: [permissionsClient()],
      setup,
      serverOptions: { logger: silentLogger },
    });
    open.push(pair);
    expect(getPermissionsSettings(pair.client)?.scopes?.map((scope) => scope.auto_grant)).toEqual([
      true,
      true,
      undefined,
    ]);
    const negotiated = await negotiateScopes(pair.client, ['tickets:read', 'tickets:list', 'tickets:delete']);
    expect(negotiated?.granted_scopes).toEqual(['tickets:read', 'tickets:list']);
    expect(deprecatedNames(emitted)).toEqual(['auto_grant']);
  });

  it('PERM-15: summarize tools still answer missing_scopes, warning once', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const pair = await createTestPair({
      line: 'v1',
      serverExtensions: [
        permissionsServer({ scopes: [{ name: 'tickets:delete', description: 'delete tickets', tools: [] }] }),
      ],
      clientExtensions: [permissionsClient()],
      setup,
      serverOptions: { logger: silentLogger },
    });
    open.push(pair);
    const summary = await summarize(pair.client);
    const tool = summary?.tools.find((entry) => entry.name === 'delete_ticket');
    expect(tool?.missing_scopes).toEqual(['tickets:delete']);
    expect(tool?.missing_scopes).toBe(tool?.missingScopes);
    expect(Object.keys(tool ?? {})).toEqual(['name', 'allowed', 'missingScopes']);
    expect(deprecatedNames(emitted)).toEqual(['missing_scopes']);
  });
});
