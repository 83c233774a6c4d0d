/** What the tour talks to: the tracker (over stdio, or over HTTP in this process) and the sheets server beside it. */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, type ComposedServer } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createReferenceOrigin } from '@ext/data-references/server';
import type { Target } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { composeTracker } from '../server/compose.js';
import { exportPaceFrom } from '../server/cli-args.js';
import { startSheetsServer, type RunningSheetsServer } from '../sheets/server.js';
import { print, style } from './output.js';

const SDK_NAMES = { v1: 'SDK v1 (@modelcontextprotocol/sdk)', v2: 'SDK v2 (@modelcontextprotocol/server)' } as const;

/** Secrets made for one tour on purpose: it keeps nothing across runs, so the servers need not warn about them. */
export interface TourSecrets {
  readonly TRACKER_SESSION_SECRET: string;
  readonly TRACKER_REFS_SECRET: string;
}

/** The tracker the tour's clients reach, the composition its pipeline shows, and where that composition runs. */
export interface TourTracker {
  readonly target: Target;
  readonly composed: ComposedServer;
  readonly where: string;
  /** The HTTP server, when the tracker runs in this process. */
  readonly running?: RunningHttpServer | undefined;
}

/**
 * The tracker over stdio: each client spawns `entry` (the compiled stdio
 * server) with a throwaway database. The composition shown is the one that
 * server builds.
 */
export function stdioTracker(sdk: 'v1' | 'v2', secrets: TourSecrets, entry: URL): TourTracker {
  // A throwaway database, so every tour starts from an empty tracker.
  const target: Extract<Target, { kind: 'stdio' }> = {
    kind: 'stdio',
    command: process.execPath,
    args: [fileURLToPath(entry)],
    env: { TRACKER_DB: ':memory:', REDIS_URL: '', ...secrets },
  };
  // The stdio server runs in its own process; this is the same composition its code builds
  // (an origin that never listens stands in for the one each stdio server starts).
  const composed = composeTracker({
    origin: createReferenceOrigin({
      secret: secrets.TRACKER_REFS_SECRET,
      store: new MemoryStore(),
      serverName: 'tracker',
    }),
    sessionSecret: secrets.TRACKER_SESSION_SECRET,
  });
  print(style.bold(`Project tracker tour: MCP extensions over stdio, on ${SDK_NAMES[sdk]}`));
  print(
    style.dim(
      `Each client below spawns its own server: node ${target.args.map((arg) => relative(process.cwd(), arg)).join(' ')}`,
    ),
  );
  return { target, composed, where: 'as composed by the stdio server' };
}

/** The tracker on Streamable HTTP in this process, callers authenticated as the demo users. */
export async function httpTracker(sdk: 'v1' | 'v2', secrets: TourSecrets): Promise<TourTracker> {
  const running = await startHttpServer({
    port: 0,
    sdk,
    exportPaceMs: exportPaceFrom(),
    sessionSecret: secrets.TRACKER_SESSION_SECRET,
    refsSecret: secrets.TRACKER_REFS_SECRET,
  });
  print(
    style.bold(
      `Project tracker tour: MCP extensions over Streamable HTTP at ${running.url.href}, on ${SDK_NAMES[sdk]}`,
    ),
  );
  return { target: running.as('alice'), composed: running.composed, where: 'this server', running };
}

/**
 * The sheets server. It fetches only from the tracker's reference origin: over HTTP its exact origin; over stdio
 * every client spawns a tracker whose origin takes a free port, so any http origin on this machine's loopback.
 */
export function startSheets(running: RunningHttpServer | undefined): Promise<RunningSheetsServer> {
  const trackerOrigin = running?.origin === undefined ? undefined : new URL(running.origin.baseUrl).origin;
  return startSheetsServer({
    allowedOrigins:
      trackerOrigin === undefined
        ? (url: URL) => url.protocol === 'http:' && url.hostname === '127.0.0.1'
        : [trackerOrigin],
    logger: silentLogger,
  });
}
