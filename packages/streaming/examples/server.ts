/** The README's server half: an export tool that reports progress, streams its rows and can be resumed. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { STREAMING_ID } from '@ext/streaming';
import { streamingServer, streamOf } from '@ext/streaming/server';
import { createSqliteStore } from '@ext/store-sqlite';
import * as z from 'zod';

const composed = composeServer([errorsServer(), streamingServer({ checkpointTtlSeconds: 3600 })]);
// Checkpoints live in the store: a durable one lets a restarted server resume.
const store = createSqliteStore({ path: 'state.db' });

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'exports', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool(
      'export_rows',
      {
        inputSchema: z.object({ table: z.string() }),
        _meta: { [STREAMING_ID]: { checkpoints: true } }, // this tool can be resumed
      },
      async ({ table }, ctx) => {
        const stream = streamOf<{ next: number }>(ctx);
        const total = await rows.count(table);
        // On a resume, continue where the checkpoint says; otherwise from 0.
        for (let next = stream.resumeState?.next ?? 0; next < total; next += 1) {
          stream.signal.throwIfAborted(); // the client cancelled, or a resume took over
          const row = await rows.read(table, next);
          await stream.progress(next + 1, total, `row ${next + 1} of ${total}`, {
            estimatedRemainingSeconds: (total - next) / 50,
          });
          await stream.chunk(row, { checkpoint: { next: next + 1 }, final: next === total - 1 });
        }
        return { content: [{ type: 'text', text: `exported ${total} rows` }] };
      },
    );
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier }) }, // who is calling: @ext/core's README
);
// #endregion server

declare const rows: {
  count(table: string): Promise<number>;
  read(table: string, index: number): Promise<{ [column: string]: string | number | null }>;
};
declare const verifier: import('@modelcontextprotocol/server').OAuthTokenVerifier;

export { handler };
