/**
 * The tracker's extensions, composed once per process and shared by every
 * server instance the transports build (SDK v2 and v1 alike), and who the
 * tracker says it is.
 */
import { composeServer, type ComposedServer, type Logger, type ToolResult } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { confirmationServer } from '@ext/confirmation/server';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { costServer } from '@ext/cost/server';
import { dataReferencesServer, type ReferenceOrigin } from '@ext/data-references/server';
import { discoveryServer, type DiscoveryPeer, type RegistryIndex } from '@ext/discovery/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentServer } from '@ext/intent/server';
import { manifestServer } from '@ext/manifest/server';
import { multimodalServer } from '@ext/multimodal/server';
import { permissionsServer } from '@ext/permissions/server';
import { provenanceServer } from '@ext/provenance/server';
import { sessionStateServer } from '@ext/session-state/server';
import { streamingServer } from '@ext/streaming/server';
import { tasksServer } from '@ext/tasks/server';
import { transactionsServer } from '@ext/transactions/server';
import { trackerTaskSupport } from '../conformance-fixtures/tasks.js';
import { createTracker } from '../domain/tracker.js';
import { ADMIN_SCOPE } from '../tools/tool-limits.js';
import { createTrackerEvents, type TrackerEvents } from '../tools/tracker-events.js';
import { SHEETS_PEER } from './discovery.js';
import { secretFrom } from './secrets.js';

export const SERVER_INFO = { name: 'tracker', version: '0.0.0' } as const;
export const SERVER_INSTRUCTIONS =
  'A small project tracker: create, look up, list, close and delete tickets, link documents, post to team chat, export reports.';

export interface ComposeTrackerOptions {
  /** Serves data references: `export_report` answers with one and images may be uploaded out of band. Without it the CSV comes inline. */
  readonly origin?: ReferenceOrigin | undefined;
  /** The events extension the tools publish through; default a new one ({@link createTrackerEvents}). */
  readonly events?: TrackerEvents | undefined;
  /** What discovery recommends from: a registry index (default empty) and peers (default the sheets server). */
  readonly index?: RegistryIndex | undefined;
  readonly peers?: readonly DiscoveryPeer[] | undefined;
  readonly logger?: Logger | undefined;
  /**
   * Secret that seals session-state tokens (32 bytes or more). Default:
   * `TRACKER_SESSION_SECRET`, else a random one per process (tokens then do
   * not survive a restart, which only costs the remembered view; said once
   * through the logger).
   */
  readonly sessionSecret?: string | undefined;
  /**
   * Also write the draft SEP-3313 `io.modelcontextprotocol/toolFailure` key
   * on every failed call (`errorsServer({ toolFailure })`). Default `true`:
   * the tracker shows hosts that speak the draft what they get; the library
   * itself leaves it off until the draft settles.
   */
  readonly toolFailure?: boolean | undefined;
}

/**
 * The tracker's extensions, composed once per process: the HTTP handler
 * builds a server per request and each must share this composition. The
 * core orders them by its fixed pipeline, whatever the order here.
 */
export function composeTracker(options: ComposeTrackerOptions = {}): ComposedServer {
  const secret = secretFrom(options.sessionSecret, 'TRACKER_SESSION_SECRET', 'session-state tokens', options.logger);
  const events = options.events ?? createTrackerEvents();
  const composed = composeServer(
    [
      errorsServer({ toolFailure: options.toolFailure ?? true }),
      sessionStateServer({ keys: [{ id: 'tracker', secret }], serverName: SERVER_INFO.name, ttlSeconds: 8 * 3600 }),
      // Also the draft SEP-3279 result variants: outputVariants listed, requestedOutputs answered.
      contentNegotiationServer({ resultVariants: true }),
      trackerPermissions(),
      trackerIntents(),
      costServer(),
      confirmationServer(),
      idempotencyServer(),
      trackerTransactions(),
      // A client that declares the official Tasks extension gets export_report as a task it polls.
      tasksServer({
        // export_report, and the fixtures of the official suite's tasks scenarios.
        tools: trackerTaskSupport,
        // An export whose server died goes on from its last row on the next instance, once the lease lapses.
        onInterrupt: { export_report: 'resume' },
        leaseMs: 3_000,
      }),
      streamingServer(),
      provenanceServer(),
      manifestServer({ description: SERVER_INSTRUCTIONS }),
      events,
      options.origin !== undefined && dataReferencesServer({ origin: options.origin }),
      multimodalServer({ outOfBand: options.origin !== undefined }),
      discoveryServer({ index: options.index, peers: options.peers ?? [SHEETS_PEER] }),
    ],
    { logger: options.logger },
  );
  eventsByComposition.set(composed, events);
  return composed;
}

const eventsByComposition = new WeakMap<ComposedServer, TrackerEvents>();

/** The events extension a tracker composition publishes through. */
export function trackerEventsOf(composed: ComposedServer): TrackerEvents | undefined {
  return eventsByComposition.get(composed);
}

/** Reading needs a scope every caller is granted; purging needs the admin scope, which nobody is granted automatically. */
function trackerPermissions(): ReturnType<typeof permissionsServer> {
  return permissionsServer({
    scopes: [
      // Everything else needs no scope: a demo should not make people negotiate before they can read.
      { name: 'tickets:read', description: 'read tickets', tools: [], autoGrant: true },
      { name: ADMIN_SCOPE, description: 'purge closed tickets', tools: ['purge_closed_tickets'] },
    ],
  });
}

/** The better tool for what an agent says it wants. */
function trackerIntents(): ReturnType<typeof intentServer> {
  return intentServer({
    rules: [
      {
        tool: 'list_tickets',
        keywords: ['all', 'every', 'overview', 'open tickets'],
        from: ['get_ticket'],
        reason: 'list_tickets shows every ticket at once; get_ticket reads one.',
      },
      {
        tool: 'export_report',
        pattern: /\b(csv|spreadsheet|export)\b/i,
        from: ['list_tickets'],
        reason: 'export_report writes the tickets as a CSV report a spreadsheet can open.',
      },
    ],
  });
}

/** How a saga undoes the steps it took: a created ticket is deleted, a linked document unlinked. */
function trackerTransactions(): ReturnType<typeof transactionsServer> {
  return transactionsServer({
    compensations: {
      create_ticket: {
        description: (_args, result) => `Delete ticket ${ticketIdOf(result)}`,
        tool: 'delete_ticket',
        compensate: async (_args, result, ctx) => {
          // Already gone (deleted by hand, or an earlier attempt): nothing left to undo.
          await createTracker(ctx.store)
            .delete(ticketIdOf(result))
            .catch(() => undefined);
        },
      },
      link_document: {
        description: (args) => `Unlink ${String(args.url)} from ${String(args.id)}`,
        compensate: async (args, _result, ctx) => {
          await createTracker(ctx.store).unlink(args.id, args.url);
        },
      },
    },
  });
}

function ticketIdOf(result: ToolResult): string {
  const ticket = result.structuredContent?.ticket;
  return isRecord(ticket) && 'id' in ticket ? String(ticket.id) : '';
}
