/** The root README's quick start on SDK v1, server side: the same ticket tracker on `@modelcontextprotocol/sdk`. */
// #region server-v1
import { createHash, timingSafeEqual } from 'node:crypto';
import { composeServer } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v1';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationServer } from '@ext/confirmation/server';
import { toolError } from '@ext/errors';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';

const port = portFrom(process.env.PORT ?? '3000');
const apiKey = process.env.API_KEY ?? 'dev-key-change-me';
if (apiKey === '') throw new Error('API_KEY must not be empty');

interface Ticket {
  id: string;
  title: string;
}
// Your database goes here; a Map keeps the example self-contained.
const tickets = new Map<string, Ticket>();
let ticketsCreated = 0;

// Composed once: the HTTP handler builds a server per session (v1 speaks the 2025-11-25 era).
const composed = composeServer([errorsServer(), idempotencyServer(), confirmationServer()]);

function createTracker(): McpServer {
  const mcp = new McpServer({ name: 'tickets', version: '1.0.0' });
  const server = extendServer(mcp, composed); // keys and tokens in memory; { store } shares them between processes
  // Idempotent: a retried call with the same key gets the first answer back; this runs once per key.
  server.registerTool('create_ticket', { inputSchema: z.object({ title: z.string().min(1) }) }, ({ title }) => {
    ticketsCreated += 1;
    const ticket = { id: `T-${ticketsCreated}`, title };
    tickets.set(ticket.id, ticket);
    console.log(`created ${ticket.id}`);
    return { content: [{ type: 'text', text: JSON.stringify(ticket) }] };
  });
  // Destructive: runs only after a person said yes ({id} is filled in from the arguments).
  server.registerTool(
    'delete_ticket',
    {
      inputSchema: z.object({ id: z.string() }),
      _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Delete ticket {id}?' } },
    },
    ({ id }) => {
      const ticket = findTicket(id);
      tickets.delete(id);
      console.log(`deleted ${id}`);
      return { content: [{ type: 'text', text: `Deleted ${id} (${ticket.title}).` }] };
    },
  );
  server.registerTool(
    'get_ticket',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    ({ id }) => ({ content: [{ type: 'text', text: JSON.stringify(findTicket(id)) }] }),
  );
  return mcp;
}

function findTicket(id: string): Ticket {
  const ticket = tickets.get(id);
  // Thrown from a tool, it reaches an extension-aware client as a structured error: a code, a category, a hint.
  if (ticket === undefined) {
    throw toolError.permanent({
      code: 'TICKET_NOT_FOUND',
      message: `No ticket ${id}`,
      suggestion: 'Check the ticket id.',
    });
  }
  return ticket;
}

// Who is calling: the holder of the API key, compared in constant time; anyone else gets 401.
const handler = createHttpHandler(createTracker, {
  identify: (request) => (sameSecret(request.headers.get('x-api-key') ?? '', apiKey) ? 'api-key-holder' : undefined),
});
const served = await listen(handler, { port });
console.log(`ticket tracker listening on ${served.url.href}`);
process.once('SIGINT', () => void served.close()); // Ctrl-C: close the sessions and the port, then exit

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function portFrom(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new Error(`PORT must be a port number from 0 to 65535, got "${text}"`);
  return port;
}
// #endregion server-v1
