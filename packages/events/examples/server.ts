/** The README's server half: a tracker that publishes ticket changes to subscribers on every instance. */
// #region server
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { eventsServer } from '@ext/events/server';
import { createRedisStore } from '@ext/store-redis';
import { McpServer, requireBearerAuth } from '@modelcontextprotocol/server';
import Type from 'typebox';

const events = eventsServer({
  events: {
    ticket_updated: {
      description: 'A ticket changed status',
      payload: Type.Object({ id: Type.String(), project: Type.String(), status: Type.String() }),
      // The filter arguments subscribers may pass; by default a field must equal the payload's.
      filter: Type.Object({ project: Type.Optional(Type.String()) }, { additionalProperties: false }),
    },
  },
});

const store = await createRedisStore({ url: process.env.REDIS_URL });
const composed = composeServer([events]);
const handler = createHttpHandler(
  () => {
    const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
    extendServer(mcp, composed, { store });
    return mcp;
  },
  { authenticate: requireBearerAuth({ verifier: tokenVerifier }) }, // who is calling: @ext/core's README
);
await listen(handler, { port: 3000 });

// Anywhere in the server (a tool handler, a webhook, a queue consumer):
await events.publish(store, 'ticket_updated', { id: 'T-42', project: 'web', status: 'closed' });
// #endregion server

declare const tokenVerifier: OAuthTokenVerifier; // checks your authorization server's access tokens

import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
