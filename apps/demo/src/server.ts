/**
 * The tracker as an MCP server on the v2 SDK, with the extensions composed
 * once and attached to every server instance the transports build.
 */
import { composeServer, MemoryStore, type CallContext, type ComposedServer, type ExtendedServer, type Logger, type Store, type ToolResult } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2';
import { contentNegotiationServer, render } from '@ext/content-negotiation/server';
import { errorsServer } from '@ext/errors/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ticketMarkdown, ticketsMarkdown, ticketsText, ticketText } from './present.js';
import { createTracker, type Ticket, type TrackerOptions } from './tracker.js';

export const SERVER_INFO = { name: 'tracker', version: '0.0.0' } as const;

export interface ComposeTrackerOptions {
  readonly logger?: Logger | undefined;
}

/**
 * The tracker's extensions, composed once per process: the HTTP handler
 * builds a server per request and each must share this composition.
 */
export function composeTracker(options: ComposeTrackerOptions = {}): ComposedServer {
  return composeServer([errorsServer(), contentNegotiationServer()], { logger: options.logger });
}

/** The store the entry points use until a durable one is configured. */
export function createStore(): Store {
  return new MemoryStore();
}

export interface TrackerServerOptions extends TrackerOptions {
  /** From {@link composeTracker}; made once and shared by every instance. */
  readonly composed: ComposedServer;
  /** Where tickets and the extensions' state live; shared by every instance. */
  readonly store: Store;
  readonly logger?: Logger | undefined;
  /** Registers more tools, resources or prompts on each instance (the conformance fixtures do). */
  readonly extend?: ((server: McpServer, extended: ExtendedServer) => void) | undefined;
}

/**
 * One handler serves every client: an agent (or a client that states no
 * preference) gets `structuredContent` and its JSON text; a person gets
 * markdown, at the verbosity they asked for.
 */
function ticketResult(ctx: CallContext, ticket: Ticket): ToolResult {
  return render(ctx, { data: { ticket }, markdown: ticketMarkdown, text: ticketText });
}

// Value rules (non-empty title, id format, status values) are checked by the
// domain rather than the schemas: a schema violation is answered by the SDK
// before the extension pipeline runs, so it could never be a structured error.
const createInput = z.object({
  title: z.string().describe(`What needs doing (1 to 200 characters).`),
  assignee: z.string().optional().describe('User name of the person responsible, e.g. "alice".'),
});
const idInput = z.object({ id: z.string().describe('Ticket id, e.g. "T-1".') });
const listInput = z.object({
  status: z.string().optional().describe('"open" or "closed"; leave out to list every ticket.'),
});

/** Builds one tracker server instance (a transport may build many, all sharing `composed` and `store`). */
export function createTrackerServer(options: TrackerServerOptions): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: 'A small project tracker: create, look up, list and close tickets.',
  });
  const extended = extendServer(server, options.composed, { store: options.store, logger: options.logger });
  const tracker = createTracker(extended.store, { now: options.now });

  extended.registerTool(
    'create_ticket',
    {
      title: 'Create ticket',
      description: 'Opens a new ticket and returns it with its id.',
      inputSchema: createInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (args, ctx) => ticketResult(ctx, await tracker.create(args)),
  );

  extended.registerTool(
    'get_ticket',
    {
      title: 'Get ticket',
      description: 'Returns one ticket by id.',
      inputSchema: idInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }, ctx) => ticketResult(ctx, await tracker.get(id)),
  );

  extended.registerTool(
    'list_tickets',
    {
      title: 'List tickets',
      description: 'Lists tickets in creation order, optionally only open or only closed ones.',
      inputSchema: listInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ status }, ctx) => render(ctx, { data: { tickets: await tracker.list({ status }) }, markdown: ticketsMarkdown, text: ticketsText }),
  );

  extended.registerTool(
    'close_ticket',
    {
      title: 'Close ticket',
      description: 'Closes an open ticket. Closing a closed ticket is an error (TICKET_ALREADY_CLOSED).',
      inputSchema: idInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ id }, ctx) => ticketResult(ctx, await tracker.close(id)),
  );

  options.extend?.(server, extended);
  return server;
}
