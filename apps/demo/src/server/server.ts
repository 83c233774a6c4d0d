/**
 * The tracker as an MCP server on the v2 SDK, with the extensions composed
 * once and attached to every server instance the transports build.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  composeServer,
  consoleLogger,
  isRecord,
  MemoryStore,
  type ComposedServer,
  type ExtendedServer,
  type Logger,
  type Store,
  type ToolResult,
} from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2';
import { confirmationServer } from '@ext/confirmation/server';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { costServer } from '@ext/cost/server';
import { createReferenceOrigin, dataReferencesServer, type ReferenceOrigin } from '@ext/data-references/server';
import { discoveryServer, loadRegistryFile, RegistryIndex, type DiscoveryPeer } from '@ext/discovery/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentServer } from '@ext/intent/server';
import { manifestServer } from '@ext/manifest/server';
import { multimodalServer } from '@ext/multimodal/server';
import { permissionsServer } from '@ext/permissions/server';
import { provenanceServer } from '@ext/provenance/server';
import { sessionStateServer } from '@ext/session-state/server';
import { createSqliteStore } from '@ext/store-sqlite';
import { streamingServer } from '@ext/streaming/server';
import { tasksServer } from '@ext/tasks/server';
import { transactionsServer } from '@ext/transactions/server';
import { McpServer } from '@modelcontextprotocol/server';
import { trackerTaskSupport } from './conformance-fixtures-tasks.js';
import { ADMIN_SCOPE, MAX_ATTACHMENT_BYTES } from './tool-limits.js';
import { registerTrackerTools, type TrackerToolsOptions } from './tools.js';
import { createTracker } from './tracker.js';
import { createTrackerEvents, type TrackerEvents } from './tracker-events.js';

export const SERVER_INFO = { name: 'tracker', version: '0.0.0' } as const;
export const SERVER_INSTRUCTIONS =
  'A small project tracker: create, look up, list, close and delete tickets, link documents, post to team chat, export reports.';

/** The demo's registry index (the MCP Registry's `/v0.1/servers` format), shipped with the app. */
export const REGISTRY_INDEX_FILE = fileURLToPath(new URL('../registry/servers.json', import.meta.url));

/**
 * The sheets server, as the tracker recommends it for spreadsheet work. It
 * runs on 127.0.0.1, and a recommendation's URL must be https, so the peer
 * names no URL: the tour connects to the sheets server it started.
 */
export const SHEETS_PEER: DiscoveryPeer = {
  name: 'io.github.mcp-ext/demo-sheets',
  title: 'Sheets (demo)',
  description: 'Spreadsheets: import CSV files by data reference and summarize their rows and columns.',
  keywords: ['spreadsheet', 'csv', 'table', 'rows', 'columns'],
  authFlow: 'none',
};

/** Loads the demo's registry index; an unreadable file leaves the index empty (peers still answer). */
export async function loadTrackerIndex(
  logger: Logger = consoleLogger,
  path = REGISTRY_INDEX_FILE,
): Promise<RegistryIndex> {
  const index = new RegistryIndex();
  try {
    await loadRegistryFile(index, path, { registryUrl: 'https://registry.modelcontextprotocol.io' });
  } catch (error) {
    logger.warn('tracker: the registry index could not be loaded; discovery answers from its peers only', {
      path,
      error: String(error),
    });
  }
  return index;
}

/**
 * A secret from `given`, else the environment variable `name`, else a random
 * one made for this process only, which is said once through `logger`:
 * what it protects does not survive a restart, nor is it shared with
 * another instance, and the operator should know which variable fixes it.
 */
export function secretFrom(
  given: string | undefined,
  name: string,
  protects: string,
  logger: Logger = consoleLogger,
): string {
  const configured = given ?? process.env[name];
  if (configured !== undefined && configured !== '') return configured;
  logger.warn(
    `tracker: ${name} is not set: ${protects} use a random secret made for this process only, so they stop working when it restarts and another instance cannot check them; set ${name} (32 bytes or more) to keep them`,
  );
  return randomBytes(32).toString('base64url');
}

/**
 * Serves the bytes of the tracker's data references (report exports, image
 * uploads) on a port of its own on 127.0.0.1 (`port`: the entry points pass
 * `TRACKER_REFS_PORT`; default a free one), at signed, expiring URLs. Its
 * secret is `TRACKER_REFS_SECRET`, else random per process (URLs then die
 * with it; said once through the logger).
 */
export async function startReferenceOrigin(
  store: Store,
  options: {
    readonly serverName?: string | undefined;
    readonly port?: number | undefined;
    readonly secret?: string | undefined;
    readonly logger?: Logger | undefined;
  } = {},
): Promise<ReferenceOrigin> {
  const origin = createReferenceOrigin({
    secret: secretFrom(options.secret, 'TRACKER_REFS_SECRET', 'data-reference URLs', options.logger),
    store,
    serverName: options.serverName ?? SERVER_INFO.name,
    uploads: { maxBytes: MAX_ATTACHMENT_BYTES },
    logger: options.logger,
  });
  await origin.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  return origin;
}

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
      permissionsServer({
        scopes: [
          // Everything else needs no scope: a demo should not make people negotiate before they can read.
          { name: 'tickets:read', description: 'read tickets', tools: [], autoGrant: true },
          { name: ADMIN_SCOPE, description: 'purge closed tickets', tools: ['purge_closed_tickets'] },
        ],
      }),
      intentServer({
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
      }),
      costServer(),
      confirmationServer(),
      idempotencyServer(),
      transactionsServer({
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
      }),
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

function ticketIdOf(result: ToolResult): string {
  const ticket = result.structuredContent?.ticket;
  return isRecord(ticket) && 'id' in ticket ? String(ticket.id) : '';
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

/**
 * Pause between exported rows for the executables: `TRACKER_EXPORT_PACE_MS`,
 * default 60, so a person sees the progress bar move.
 */
export function exportPaceFrom(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.TRACKER_EXPORT_PACE_MS;
  const pace = raw === undefined || raw === '' ? 60 : Number(raw);
  if (!Number.isInteger(pace) || pace < 0 || pace > 10_000)
    throw new RangeError(`TRACKER_EXPORT_PACE_MS must be an integer from 0 to 10000, got ${JSON.stringify(raw)}`);
  return pace;
}

export interface TrackerServerOptions extends TrackerToolsOptions {
  /** From {@link composeTracker}; made once and shared by every instance. */
  readonly composed: ComposedServer;
  /** Where tickets and the extensions' state live; shared by every instance. */
  readonly store: Store;
  readonly logger?: Logger | undefined;
  /** Registers more tools, resources or prompts on each instance (the conformance fixtures do). */
  readonly extend?: ((server: McpServer, extended: ExtendedServer) => void) | undefined;
}

/** Builds one tracker server instance (a transport may build many, all sharing `composed` and `store`). */
export function createTrackerServer(options: TrackerServerOptions): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS });
  const extended = extendServer(server, options.composed, { store: options.store, logger: options.logger });
  registerTrackerTools(extended, { ...options, events: options.events ?? trackerEventsOf(options.composed) });
  options.extend?.(server, extended);
  return server;
}
