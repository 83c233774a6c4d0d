/**
 * The tracker's tools, registered through core's SDK-neutral
 * `ExtendedServer`: the v2 server (`server.ts`) and the v1 server
 * (`server-v1.ts`) serve exactly these, through the same composition.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallContext, ExtendedServer, ToolResult } from '@ext/core';
import { render } from '@ext/content-negotiation/server';
import { COST_ID } from '@ext/cost';
import { DATA_REFERENCES_ID, resourceLinkFor } from '@ext/data-references';
import { referencesFor } from '@ext/data-references/server';
import { MULTIMODAL_ID } from '@ext/multimodal';
import { binaryInputSchema, inputsOf, openInput } from '@ext/multimodal/server';
import { cite } from '@ext/provenance/server';
import { sessionState } from '@ext/session-state/server';
import { STREAMING_ID } from '@ext/streaming';
import { streamOf } from '@ext/streaming/server';
import { z } from 'zod';
import { reportMarkdown, reportText, ticketMarkdown, ticketsMarkdown, ticketsText, ticketText } from './present.js';
import { csvHeader, csvRow, REPORT_COLUMNS } from './report.js';
import type { TrackerEvents } from './server.js';
import { createTracker, parseStatus, type Ticket, type TicketStatus, type TrackerOptions } from './tracker.js';

/** Scope a person must be granted (it is never granted automatically). */
export const ADMIN_SCOPE = 'tickets:admin';

/** Exports a caller may run per hour (cost: a metered tool with a quota). */
export const EXPORT_QUOTA = 5;
export const EXPORT_QUOTA_WINDOW_SECONDS = 3600;

/** Largest image `attach_image` takes, and the media types it accepts. */
export const MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;
export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export interface TrackerToolsOptions extends TrackerOptions {
  /**
   * Pause after each exported row, in ms, so a person can watch the
   * progress bar. Default 0; the executables set `TRACKER_EXPORT_PACE_MS`
   * (default 60).
   */
  readonly exportPaceMs?: number | undefined;
  /** Where ticket changes are published (`ticket_created`, `ticket_closed`, `ticket_deleted`); none: nothing is published. */
  readonly events?: TrackerEvents | undefined;
}

type TicketEvent = 'ticket_created' | 'ticket_closed' | 'ticket_deleted';

/** What set_view remembers per caller (session state). */
// A type alias (not an interface) so it is a JSON value for session state.
type TrackerView = { status: TicketStatus | 'all' };

/** Where an interrupted export continues (streaming checkpoints). */
// A type alias (not an interface) so it is a JSON value for the checkpoint store.
type ExportCheckpoint = { report: string; sent: number };

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
  cite(ctx, {
    source: 'tracker:tickets',
    retrieved_at: new Date().toISOString(),
    confidence: 'exact',
    ...(version === undefined ? {} : { version }),
  });
}

// Value rules (non-empty title, id format, status values) are checked by the
// domain rather than the schemas, so the messages and fields are the
// tracker's own; the core still refuses a wrong JSON type as invalid_input.
const createInput = z.object({
  title: z.string().describe(`What needs doing (1 to 200 characters).`),
  assignee: z.string().optional().describe('User name of the person responsible, e.g. "alice".'),
});
const idInput = z.object({ id: z.string().describe('Ticket id, e.g. "T-1".') });
const listInput = z.object({
  status: z.string().optional().describe('"open" or "closed"; leave out to list every ticket.'),
});

/** Registers every tracker tool on one extended server instance. */
export function registerTrackerTools(extended: ExtendedServer, options: TrackerToolsOptions = {}): void {
  const tracker = createTracker(extended.store, { now: options.now });
  const pace = options.exportPaceMs ?? 0;
  // Every instance sharing the store delivers the event to its subscribers.
  const publish = async (event: TicketEvent, ticket: Ticket): Promise<Ticket> => {
    await options.events?.publish(extended.store, event, {
      id: ticket.id,
      title: ticket.title,
      status: ticket.status,
      ...(ticket.assignee === undefined ? {} : { assignee: ticket.assignee }),
    });
    return ticket;
  };

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
      annotations: { readOnlyHint: false, openWorldHint: false },
      _meta: {
        'io.github.mcp-ext/confirmation': {
          risk_level: 'destructive',
          confirmation_message: 'Delete ticket {id} for good? This cannot be undone.',
        },
      },
    },
    async ({ id }, ctx) => ticketResult(ctx, await publish('ticket_deleted', await tracker.delete(id))),
  );

  extended.registerTool(
    'link_document',
    {
      title: 'Link document',
      description: 'Links a document (an https URL) to a ticket.',
      inputSchema: z.object({
        id: z.string().describe('Ticket id, e.g. "T-1".'),
        url: z.string().describe('https address of the document.'),
      }),
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
      description:
        'Remembers which tickets list_tickets shows you by default ("open", "closed" or "all"), for this session.',
      inputSchema: z.object({ status: z.string().describe('"open", "closed" or "all".') }),
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
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
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

  extended.registerTool(
    'export_report',
    {
      title: 'Export report',
      description:
        `Exports tickets as a CSV report, streaming each row as it is written, and keeps the report. ` +
        `Metered: ${String(EXPORT_QUOTA)} exports per caller per hour.`,
      inputSchema: listInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      _meta: {
        [COST_ID]: {
          cost: { category: 'metered', estimated_units: 1, unit_label: 'exports' },
          latency: 'seconds',
          quota: { limit: EXPORT_QUOTA, window_seconds: EXPORT_QUOTA_WINDOW_SECONDS },
        },
        [STREAMING_ID]: { checkpoints: true },
      },
    },
    async ({ status }, ctx) => {
      const stream = streamOf<ExportCheckpoint>(ctx);
      const tickets = await tracker.list({ status });
      citeTicketStore(ctx);
      // A resumed export keeps its report id and continues after the last row it streamed.
      const report = stream.resumeState?.report ?? (await tracker.reserveReport());
      // Chunk 0 is the CSV header, chunk n the n-th row.
      let sent = stream.resumeState?.sent ?? 0;
      if (sent === 0) {
        await stream.chunk(csvHeader(), { final: tickets.length === 0, checkpoint: { report, sent: 1 } });
        sent = 1;
      }
      for (let index = sent - 1; index < tickets.length; index += 1) {
        stream.signal.throwIfAborted();
        const ticket = tickets[index] as Ticket;
        await stream.chunk(csvRow(ticket), {
          final: index === tickets.length - 1,
          checkpoint: { report, sent: index + 2 },
        });
        const left = tickets.length - index - 1;
        await stream.progress(index + 1, tickets.length, `row ${String(index + 1)} of ${String(tickets.length)}`, {
          estimatedRemainingSeconds: Math.ceil((left * pace) / 1000),
        });
        if (pace > 0 && left > 0) await sleep(pace, undefined, { signal: stream.signal });
      }
      if (tickets.length === 0) await stream.progress(1, 1, 'no tickets to export');
      const saved = await tracker.saveReport(report, tickets, status ?? 'all');
      const summary = {
        id: saved.id,
        media_type: saved.media_type,
        columns: [...REPORT_COLUMNS],
        rows: saved.rows,
        bytes: saved.bytes,
      };
      const references = referencesFor(ctx);
      if (references?.origin === undefined)
        return render(ctx, {
          data: { report: { ...summary, csv: saved.csv } },
          markdown: reportMarkdown,
          text: reportText,
        });
      // With an origin the CSV is not inlined: a signed, expiring URL serves it, and another server can import it by reference.
      const bytes = Buffer.from(saved.csv, 'utf8');
      const reference = await references.create(
        { generate: (offset) => [bytes.subarray(offset)] },
        { mimeType: saved.media_type, name: `${saved.id}.csv` },
      );
      const rendered = render(ctx, {
        data: { report: { ...summary, reference } },
        markdown: reportMarkdown,
        text: reportText,
      });
      const link = resourceLinkFor(reference);
      return {
        ...rendered,
        content: [...rendered.content, ...(link === undefined ? [] : [link])],
        _meta: { ...rendered._meta, ...referenceMeta(reference) },
      };
    },
  );

  extended.registerTool(
    'attach_image',
    {
      title: 'Attach image',
      description:
        `Attaches an image (PNG, JPEG, GIF or WebP, at most ${String(MAX_ATTACHMENT_BYTES / (1024 * 1024))} MiB) to a ticket. ` +
        'Send it as image content, or upload it out of band and pass the data reference.',
      inputSchema: z.object({
        id: z.string().describe('Ticket id, e.g. "T-1".'),
        image: binaryInputSchema('The image: image content, or a data reference to an upload.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      _meta: { [MULTIMODAL_ID]: { input_types: ATTACHMENT_TYPES, max_input_size_bytes: MAX_ATTACHMENT_BYTES } },
    },
    async ({ id, image }, ctx) => {
      // The multimodal stage already refused wrong types and sizes; this reads the bytes however they came.
      const [input] = inputsOf(ctx);
      const digest = createHash('sha256');
      let size = 0;
      for await (const chunk of await openInput(ctx, image)) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        digest.update(bytes);
      }
      const attachment = {
        media_type: input?.mimeType ?? 'application/octet-stream',
        bytes: size,
        sha256: digest.digest('hex'),
        via: input?.kind ?? 'content',
      };
      const ticket = await tracker.attach(id, attachment);
      return {
        content: [
          {
            type: 'text',
            text: `Attached a ${String(size)}-byte ${attachment.media_type} image to ${ticket.id} (${attachment.via}).`,
          },
        ],
        structuredContent: { ticket: ticket.id, attachment },
      };
    },
  );
}

/** `_meta` naming a reference, for clients that negotiated data references (others read the resource_link). */
function referenceMeta(reference: unknown): Record<string, unknown> {
  return { [DATA_REFERENCES_ID]: { references: [reference] } };
}
