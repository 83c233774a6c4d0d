/** The tracker's ticket tools (create, read, list, close, delete, link), and its chat, view and purge tools. */
import type { ExtendedServer } from '@ext/core';
import { render } from '@ext/content-negotiation/server';
import { sessionState } from '@ext/session-state/server';
import { z } from 'zod';
import { ticketsMarkdown, ticketsText } from './present.js';
import type { TicketStatus } from '../domain/ticket.js';
import { ADMIN_SCOPE } from './tool-limits.js';
import {
  citeTicketStore,
  createInput,
  deletedResult,
  idInput,
  listInput,
  ticketResult,
  type ToolDeps,
} from './tool-support.js';
import { parseStatus } from '../domain/tracker-input.js';

// Built once, not per server instance: a legacy-era session builds a server, and a zod object each was
// most of its memory (and a schema object seen for the first time is rendered as JSON Schema again).
const linkInput = z.object({
  id: z.string().describe('Ticket id, e.g. "T-1".'),
  url: z.string().describe('https address of the document.'),
});
const postInput = z.object({ channel: z.string().describe('Channel name, e.g. "releases".'), text: z.string() });
const viewInput = z.object({ status: z.string().describe('"open", "closed" or "all".') });

/** What set_view remembers per caller (session state). */
// A type alias (not an interface) so it is a JSON value for session state.
type TrackerView = { status: TicketStatus | 'all' };

/** Registers the tools that create, read, list, close, delete and link tickets. */
export function registerTicketTools(extended: ExtendedServer, deps: ToolDeps): void {
  // In this order: a client lists tools as they were registered.
  registerTicketCreateAndReads(extended, deps);
  registerTicketChanges(extended, deps);
}

/** `create_ticket` (published as an event), then `get_ticket` and `list_tickets`, which cite the store they read. */
function registerTicketCreateAndReads(extended: ExtendedServer, { tracker, publish }: ToolDeps): void {
  extended.registerTool(
    'create_ticket',
    {
      title: 'Create ticket',
      description: 'Opens a new ticket and returns it with its id.',
      inputSchema: createInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (args, ctx) => ticketResult(ctx, await publish('ticket_created', await tracker.create(args))),
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
      return render(ctx, {
        data: { tickets: await tracker.list({ status: filter }) },
        markdown: ticketsMarkdown,
        text: ticketsText,
      });
    },
  );
}

/** `close_ticket` and `delete_ticket` (held for confirmation), published as events, and `link_document`. */
function registerTicketChanges(extended: ExtendedServer, { tracker, publish }: ToolDeps): void {
  extended.registerTool(
    'close_ticket',
    {
      title: 'Close ticket',
      description: 'Closes an open ticket. Closing a closed ticket is an error (TICKET_ALREADY_CLOSED).',
      inputSchema: idInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ id }, ctx) => ticketResult(ctx, await publish('ticket_closed', await tracker.close(id))),
  );

  extended.registerTool(
    'delete_ticket',
    {
      title: 'Delete ticket',
      description: 'Deletes a ticket for good. A person must approve it first.',
      inputSchema: idInput,
      // Ids are never reused, so deleting a ticket again deletes nothing new: safe to retry (idempotent_capable).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      _meta: {
        'io.github.mcp-ext/confirmation': {
          risk_level: 'destructive',
          confirmation_message: 'Delete ticket {id} for good? This cannot be undone.',
        },
      },
    },
    async ({ id }, ctx) => deletedResult(ctx, await publish('ticket_deleted', await tracker.delete(id))),
  );

  extended.registerTool(
    'link_document',
    {
      title: 'Link document',
      description: 'Links a document (an https URL) to a ticket.',
      inputSchema: linkInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, url }, ctx) => ticketResult(ctx, await tracker.link(id, url)),
  );
}

/** Registers `post_message` (team chat), `set_view` (remembered per caller) and `purge_closed_tickets` (admin). */
export function registerChatViewAndPurgeTools(extended: ExtendedServer, { tracker }: ToolDeps): void {
  extended.registerTool(
    'post_message',
    {
      title: 'Post to team chat',
      description: 'Posts a message to a team chat channel. The #archive channel is archived and refuses posts.',
      inputSchema: postInput,
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
      description:
        'Remembers which tickets list_tickets shows you by default ("open", "closed" or "all"), for this session.',
      inputSchema: viewInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ status }, ctx) => {
      const view = status === 'all' ? undefined : parseStatus(status);
      sessionState<TrackerView>(ctx).set({ status: view ?? 'all' });
      return {
        content: [{ type: 'text', text: `list_tickets now shows ${view ?? 'all'} tickets by default.` }],
        structuredContent: { status: view ?? 'all' },
      };
    },
  );

  extended.registerTool(
    'purge_closed_tickets',
    {
      title: 'Purge closed tickets',
      description: `Deletes every closed ticket. Needs the ${ADMIN_SCOPE} scope.`,
      // A repeat deletes the tickets closed since: not idempotent, so keys are not honoured (IDEM-14a).
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    async () => {
      const purged: string[] = [];
      for (const ticket of await tracker.list({ status: 'closed' })) purged.push((await tracker.delete(ticket.id)).id);
      return {
        content: [{ type: 'text', text: `Purged ${String(purged.length)} closed ticket(s).` }],
        structuredContent: { purged },
      };
    },
  );
}
