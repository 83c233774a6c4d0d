/** The README's server half: a metered export with a daily quota, and a transfer a person approves. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { confirmationServer } from '@ext/confirmation/server';
import { costOf, COST_ID } from '@ext/cost';
import { costServer } from '@ext/cost/server';
import { createRedisStore } from '@ext/store-redis';
import * as z from 'zod';

const composed = composeServer([errorsServer(), costServer(), confirmationServer()]);
const store = await createRedisStore({ url: process.env.REDIS_URL });

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'analytics', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool(
      'export_analytics',
      {
        inputSchema: z.object({ range: z.string() }),
        _meta: {
          [COST_ID]: {
            cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
            latency: 'minutes',
            // 12 API calls per caller in any 24 hours (the window slides; window: 'fixed' resets at 00:00 UTC)
            quota: { limit: 12, window_seconds: 86_400 },
            rate_limits: { requests_per_minute: 2 },
          },
        },
      },
      async ({ range }, ctx) => {
        const rows = await warehouse.export(range);
        costOf(ctx)?.reportUnits(rows.pages); // optional: charge what was really used
        return { content: [{ type: 'text', text: rows.summary }] };
      },
    );
    server.registerTool(
      'wire_funds',
      {
        inputSchema: z.object({ amount: z.number() }),
        // A person approves each call through @ext/confirmation; without it the call is refused.
        _meta: { [COST_ID]: { cost: { category: 'requires_approval', estimated_units: 1, unit_label: 'transfers' } } },
      },
      async ({ amount }) => ({ content: [{ type: 'text', text: await bank.wire(amount) }] }),
    );
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3000 });
// #endregion server

declare const warehouse: { export(range: string): Promise<{ pages: number; summary: string }> };
declare const bank: { wire(amount: number): Promise<string> };
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
