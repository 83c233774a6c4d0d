#!/usr/bin/env node
/**
 * `tracker-stdio-v1`: the tracker on the v1 SDK over stdio, for hosts that
 * launch servers as child processes (legacy era: `initialize`). Only MCP
 * goes to stdout; diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { composeTracker, exportPaceFrom, loadTrackerIndex, openStore, startReferenceOrigin } from './server.js';
import { createTrackerServerV1 } from './server-v1.js';

const store = await openStore();
// Report exports and image uploads are served from a port of their own (TRACKER_REFS_PORT, default a free one).
const origin = await startReferenceOrigin(store, { port: process.env.TRACKER_REFS_PORT === undefined ? undefined : Number(process.env.TRACKER_REFS_PORT) });
const composed = composeTracker({ origin, index: await loadTrackerIndex() });
const server = createTrackerServerV1({ composed, store, exportPaceMs: exportPaceFrom() });
server.server.onerror = (error) => {
  console.error('tracker (v1): stdio error', error.message);
};
await server.connect(new StdioServerTransport());

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  Promise.all([server.close(), origin.close()]).then(() => store.close()).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('tracker (v1): shutdown failed', error);
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// The host closing our stdin is the usual way a stdio server is told to stop.
process.stdin.once('end', stop);
