import { silentLogger } from '@ext/core/kit';
import { type ExtendedServer, type ToolResult } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { PERMISSIONS_ID } from './index.js';
import { permissionsServer, registerPermissionTools } from './server.js';

const seeds = seedValidators();
let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

function setup(server: ExtendedServer): void {
  server.registerTool(
    'delete_ticket',
    {
      description: 'Deletes a ticket',
      inputSchema: z.object({ id: z.string() }),
      _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:delete'] } },
    },
    (): ToolResult => ({ content: [{ type: 'text', text: 'deleted' }] }),
  );
  registerPermissionTools(server);
}

describe.each(TEST_LINES)('permissions served as tools on %s (PERM-17)', (line) => {
  it('check_permissions and negotiate_permissions answer what the methods answer, to a client without the extension', async () => {
    pair = await createTestPair({
      line,
      serverExtensions: [
        permissionsServer({
          scopes: [
            { name: 'tickets:read', description: 'read tickets', tools: [], autoGrant: true },
            { name: 'tickets:delete', description: 'delete tickets', tools: [] },
          ],
        }),
      ],
      setup,
      serverOptions: { logger: silentLogger },
    });
    const check = await pair.client.callTool('check_permissions', { tool: 'delete_ticket' });
    expect(seeds.check('permissions', 'PermissionCheckResponse')(check.structuredContent).valid).toBe(true);
    expect(check.structuredContent).toMatchObject({ allowed: false, missing_scopes: ['tickets:delete'] });
    expect(check.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Not allowed/) as unknown });

    const negotiated = await pair.client.callTool('negotiate_permissions', {
      requested_scopes: ['tickets:read', 'tickets:delete'],
    });
    expect(seeds.check('permissions', 'ScopeNegotiationResponse')(negotiated.structuredContent).valid).toBe(true);
    expect(negotiated.structuredContent).toMatchObject({ granted_scopes: ['tickets:read'] });

    const tools = await pair.client.listTools();
    expect(tools.find((tool) => tool.name === 'check_permissions')?.annotations).toMatchObject({ readOnlyHint: true });
  });
});
