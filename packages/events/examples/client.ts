/** The README's client half: a subscription to ticket changes that survives a dropped connection. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { eventsClient, listEventTypes, subscribeEvents } from '@ext/events/client';

async function connect() {
  const sdkClient = new Client({ name: 'dashboard', version: '1.0.0' });
  const client = extendClient(sdkClient, [eventsClient()]); // before connect
  await sdkClient.connect(
    new StreamableHTTPClientTransport(new URL('https://tracker.example/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

const client = await connect();
const { events } = (await listEventTypes(client)) ?? { events: [] };
// [{ name: 'ticket_updated', description, payload_schema, filter_schema }]

const subscription = await subscribeEvents(client, {
  events: ['ticket_updated'],
  filter: { project: 'web' },
  onEvent: (event) => {
    console.log(event.event, event.payload);
  },
  onTerminated: (notice) => {
    console.log('ended:', notice.reason);
  },
});

// After a dropped connection, on a new client: continues from the last event, nothing missed or repeated.
await subscription?.resume(await connect());
await subscription?.unsubscribe();
// #endregion client

declare const accessToken: string; // the user's OAuth access token for the tracker

export { events };
