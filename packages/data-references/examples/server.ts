/** The README's producing server: an analytics server that hands out references to its exports and takes uploads. */
// #region server
import { createServer } from 'node:http';
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, nodeListener } from '@ext/core/sdk-v2/server';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import { errorsServer } from '@ext/errors/server';
import { referenceResult } from '@ext/data-references';
import { createReferenceOrigin, dataReferencesServer, referencesOf } from '@ext/data-references/server';
import * as z from 'zod';

const store = new MemoryStore(); // one store for the origin and the server (a shared one when there are several instances)
const origin = createReferenceOrigin({
  secret: process.env.REFS_SECRET ?? '', // at least 32 bytes, the same on every instance (a missing one fails here)
  store,
  serverName: 'analytics',
  baseUrl: 'https://analytics.example.com/refs',
  uploads: { maxBytes: 64 * 1024 * 1024 }, // optional: clients may upload raw bytes
});
const composed = composeServer([errorsServer(), dataReferencesServer({ origin })]);

const mcpHttp = nodeListener(
  createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'analytics', version: '1.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'export_events',
        { inputSchema: z.object({ from: z.string(), to: z.string() }) },
        async ({ from, to }, ctx) => {
          const reference = await referencesOf(ctx).create(
            { path: await writeCsv(from, to) }, // or { chunks: asyncIterable } or { generate: (offset) => ... }
            { mimeType: 'text/csv', name: 'events.csv' },
          );
          return referenceResult(reference, { text: `Exported events from ${from} to ${to}.` });
        },
      );
      server.registerTool(
        'analyze_image',
        { inputSchema: z.object({ image: z.looseObject({ ref_id: z.string() }) }) }, // a reference, e.g. an upload
        async ({ image }, ctx) => {
          const bytes = await referencesOf(ctx).open(image.ref_id); // the caller's own reference, as a stream
          return { content: [{ type: 'text', text: await describeImage(bytes) }] };
        },
      );
      return mcp;
    },
    { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
  ),
);
createServer((req, res) => {
  if (origin.handle(req, res)) return; // GET/HEAD /refs/<id>, PUT /refs/uploads/<id>
  mcpHttp(req, res);
}).listen(8080);
// #endregion server

declare function writeCsv(from: string, to: string): Promise<string>; // writes the export, returns its path
declare function describeImage(bytes: Readable): Promise<string>;
declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { Readable } from 'node:stream';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
