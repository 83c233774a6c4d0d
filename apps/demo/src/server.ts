/**
 * The tracker as an MCP server on the v2 SDK, with the extensions composed
 * once and attached to every server instance the transports build.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeServer, MemoryStore, type CallContext, type ComposedServer, type ExtendedServer, type Logger, type Store, type ToolResult } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2';
import { confirmationServer } from '@ext/confirmation/server';
import { contentNegotiationServer, render } from '@ext/content-negotiation/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentServer } from '@ext/intent/server';
import { permissionsServer } from '@ext/permissions/server';
import { cite, provenanceServer } from '@ext/provenance/server';
import { sessionState, sessionStateServer } from '@ext/session-state/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { transactionsServer } from '@ext/transactions/server';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ticketMarkdown, ticketsMarkdown, ticketsText, ticketText } from './present.js';
import { createTracker, parseStatus, type Ticket, type TicketStatus, type TrackerOptions } from './tracker.js';

export const SERVER_INFO = { name: 'tracker', version: '0.0.0' } as const;

export interface ComposeTrackerOptions {
  readonly logger?: Logger | undefined;
  /**
   * Secret that seals session-state tokens (32 bytes or more). Default:
   * `TRACKER_SESSION_SECRET`, else a random one per process (tokens then do
   * not survive a restart, which only costs the remembered view).
   */
  readonly sessionSecret?: string | undefined;
}

/** Scope a person must be granted (it is never granted automatically). */
export const ADMIN_SCOPE = 'tickets:admin';

/**
 * The tracker's extensions, composed once per process: the HTTP handler
 * builds a server per request and each must share this composition. The
 * core orders them by its fixed pipeline, whatever the order here.
 */
export function composeTracker(options: ComposeTrackerOptions = {}): ComposedServer {
  const secret = options.sessionSecret ?? process.env.TRACKER_SESSION_SECRET ?? randomBytes(32).toString('base64url');
  return composeServer(
    [
      errorsServer(),
      sessionStateServer({ keys: [{ id: 'tracker', secret }], serverName: SERVER_INFO.name, ttlSeconds: 8 * 3600 }),
      contentNegotiationServer(),
      permissionsServer({
        scopes: [
          // Everything else needs no scope: a demo should not make people negotiate before they can read.
          { name: 'tickets:read', description: 'read tickets', tools: [], auto_grant: true },
          { name: ADMIN_SCOPE, description: 'purge closed tickets', tools: ['purge_closed_tickets'] },
        ],
      }),
      intentServer({
        rules: [
          { tool: 'list_tickets', keywords: ['all', 'every', 'overview', 'open tickets'], from: ['get_ticket'], reason: 'list_tickets shows every ticket at once; get_ticket reads one.' },
        ],
      }),
      confirmationServer(),
      idempotencyServer(),
      transactionsServer({
        compensations: {
          create_ticket: {
            description: (_args, result) => `Delete ticket ${ticketIdOf(result)}`,
            tool: 'delete_ticket',
            compensate: async (_args, result, ctx) => {
              // Already gone (deleted by hand, or an earlier attempt): nothing left to undo.
              await createTracker(ctx.store).delete(ticketIdOf(result)).catch(() => undefined);
            },
          },
          link_document: {
            description: (args) => `Unlink ${String(args.url)} from ${String(args.id)}`,
            compensate: async (args, _result, ctx) => {
              await createTracker(ctx.store).unlink(args.id, args.url);
            },
          },
        },
      }),
      provenanceServer(),
    ],
    { logger: options.logger },
  );
}

function ticketIdOf(result: ToolResult): string {
  const ticket = result.structuredContent?.ticket;
  return typeof ticket === 'object' && ticket !== null && 'id' in ticket ? String(ticket.id) : '';
}

/** Where the tracker keeps its SQLite database unless `TRACKER_DB` says otherwise. */
export const DEFAULT_DATABASE = fileURLToPath(new URL('../data/tracker.db', import.meta.url));

/**
 * The store the entry points use: Redis when `REDIS_URL` is set (many
 * instances share it), else SQLite in `TRACKER_DB` (default
 * `apps/demo/data/tracker.db`, created on first run; `:memory:` for a
 * throwaway one).
 */
export async function openStore(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Store> {
  if (env.REDIS_URL !== undefined && env.REDIS_URL !== '') {
    const { createRedisStore } = await import('@ext/store-redis');
    return createRedisStore({ url: env.REDIS_URL, keyPrefix: 'tracker-demo:' });
  }
  const path = env.TRACKER_DB ?? DEFAULT_DATABASE;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return createSqliteStore({ path });
}

/** A store for tests and throwaway runs. */
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

/** Reads carry where the data came from (provenance). */
function citeTicketStore(ctx: CallContext, version?: string): void {
  cite(ctx, { source: 'tracker:tickets', retrieved_at: new Date().toISOString(), confidence: 'exact', ...(version === undefined ? {} : { version }) });
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
    async ({ id }, ctx) => {
      const ticket = await tracker.get(id);
      citeTicketStore(ctx, ticket.closed_at ?? ticket.created_at);
      return ticketResult(ctx, ticket);
    },
  );

  extended.registerTool(
    'list_tickets',
    {
      title: 'List tickets',
      description: 'Lists tickets in creation order, optionally only open or only closed ones.',
      inputSchema: listInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ status }, ctx) => {
      // Without a status, the view this caller chose with set_view (session state), else all.
      const remembered = sessionState<TrackerView>(ctx).get()?.status;
      const filter = status ?? (remembered === 'all' ? undefined : remembered);
      citeTicketStore(ctx);
      return render(ctx, { data: { tickets: await tracker.list({ status: filter }) }, markdown: ticketsMarkdown, text: ticketsText });
    },
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

  extended.registerTool(
    'delete_ticket',
    {
      title: 'Delete ticket',
      description: 'Deletes a ticket for good. A person must approve it first.',
      inputSchema: idInput,
      annotations: { readOnlyHint: false, openWorldHint: false },
      _meta: { 'io.github.mcp-ext/confirmation': { risk_level: 'destructive', confirmation_message: 'Delete ticket {id} for good? This cannot be undone.' } },
    },
    async ({ id }, ctx) => ticketResult(ctx, await tracker.delete(id)),
  );

  extended.registerTool(
    'link_document',
    {
      title: 'Link document',
      description: 'Links a document (an https URL) to a ticket.',
      inputSchema: z.object({ id: z.string().describe('Ticket id, e.g. "T-1".'), url: z.string().describe('https address of the document.') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, url }, ctx) => ticketResult(ctx, await tracker.link(id, url)),
  );

  extended.registerTool(
    'post_message',
    {
      title: 'Post to team chat',
      description: 'Posts a message to a team chat channel. The #archive channel is archived and refuses posts.',
      inputSchema: z.object({ channel: z.string().describe('Channel name, e.g. "releases".'), text: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ channel, text }) => {
      const message = await tracker.post(channel, text);
      return { content: [{ type: 'text', text: `Posted to #${message.channel}.` }], structuredContent: { message } };
    },
  );

  extended.registerTool(
    'set_view',
    {
      title: 'Remember my view',
      description: 'Remembers which tickets list_tickets shows you by default ("open", "closed" or "all"), for this session.',
      inputSchema: z.object({ status: z.string().describe('"open", "closed" or "all".') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ status }, ctx) => {
      const view = status === 'all' ? undefined : parseStatus(status);
      sessionState<TrackerView>(ctx).set({ status: view ?? 'all' });
      return { content: [{ type: 'text', text: `list_tickets now shows ${view ?? 'all'} tickets by default.` }], structuredContent: { status: view ?? 'all' } };
    },
  );

  extended.registerTool(
    'purge_closed_tickets',
    {
      title: 'Purge closed tickets',
      description: `Deletes every closed ticket. Needs the ${ADMIN_SCOPE} scope.`,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async () => {
      const purged: string[] = [];
      for (const ticket of await tracker.list({ status: 'closed' })) purged.push((await tracker.delete(ticket.id)).id);
      return { content: [{ type: 'text', text: `Purged ${String(purged.length)} closed ticket(s).` }], structuredContent: { purged } };
    },
  );

  options.extend?.(server, extended);
  return server;
}

/** What set_view remembers per caller (session state). */
// A type alias (not an interface) so it is a JSON value for session state.
type TrackerView = { status: TicketStatus | 'all' };
