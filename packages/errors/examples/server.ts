/** The README's server half: a search tool whose failures reach clients as structured errors. */
// #region server
import { McpServer } from '@modelcontextprotocol/server';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { toolError } from '@ext/errors';
import { errorsServer } from '@ext/errors/server';
import * as z from 'zod';

const composed = composeServer([
  errorsServer({
    documentationBaseUrl: 'https://docs.example.com/errors#',
    onError: ({ error, structured, call }) => {
      console.error(call.name, structured.code, error);
    },
  }),
]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'search', version: '1.0.0' });
    const server = extendServer(mcp, composed);
    server.registerTool('search', { inputSchema: z.object({ q: z.string() }) }, async ({ q }) => {
      if (await quotaExhausted()) {
        throw toolError.rateLimited({
          message: 'Search quota used up.',
          retryAfterSeconds: 42,
          suggestion: 'Narrow the date range to reduce query cost.',
        });
      }
      return { content: [{ type: 'text', text: await search(q) }] };
    });
    return mcp;
  },
  { identify: (request) => keyOwner(request.headers.get('x-api-key') ?? '') }, // who is calling: core's README
);
// #endregion server

declare function quotaExhausted(): Promise<boolean>;
declare function search(query: string): Promise<string>;
declare function keyOwner(key: string): string | undefined;

export { handler };
