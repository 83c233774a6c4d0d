/** The README's server half: an image tool that declares its media, served with an upload endpoint for raw bytes. */
// #region server
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { createReferenceOrigin, dataReferencesServer } from '@ext/data-references/server';
import { errorsServer } from '@ext/errors/server';
import { MULTIMODAL_ID } from '@ext/multimodal';
import { binaryInputSchema, multimodalServer, openInput } from '@ext/multimodal/server';
import * as z from 'zod';

const store = new MemoryStore(); // one instance; instances behind a load balancer share a durable store
const origin = createReferenceOrigin({
  secret: process.env.REFS_SECRET ?? '', // at least 32 bytes, the same on every instance
  store, // the store the server adapter gets
  serverName: 'vision',
  uploads: true, // clients may upload raw bytes
});
// The upload endpoint on a port of its own; or mount origin.handle on your HTTP server and pass baseUrl.
await origin.listen({ port: 3001 });
const composed = composeServer([
  errorsServer(),
  dataReferencesServer({ origin }), // hands out upload URLs; the bytes go to the origin's endpoint
  multimodalServer({ outOfBand: true }), // outOfBand needs dataReferencesServer
]);

const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'vision', version: '1.0.0' });
    const server = extendServer(mcp, composed, { store });
    server.registerTool(
      'describe_image',
      {
        inputSchema: z.object({ image: binaryInputSchema() }), // image/audio content, a blob, or a data reference
        _meta: {
          [MULTIMODAL_ID]: {
            input_types: ['image/png', 'image/jpeg'],
            output_types: ['application/json'],
            max_input_size_bytes: 10 * 1024 * 1024,
            // accepts_unlisted_types: true, // let other types through (the listed ones are then hints)
          },
        },
      },
      async ({ image }, ctx) => {
        const stream = await openInput(ctx, image); // the bytes, however they came
        return { content: [{ type: 'text', text: await describe(stream) }] };
      },
    );
    return mcp;
  },
  { identify: (request) => keyOwner(request.headers.get('x-api-key') ?? '') }, // who is calling: core's README
);
await listen(handler, { port: 3000 }); // http://127.0.0.1:3000/mcp
// #endregion server

declare function describe(image: AsyncIterable<Uint8Array>): Promise<string>;
declare function keyOwner(key: string): string | undefined;
