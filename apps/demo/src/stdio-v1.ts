#!/usr/bin/env node
/**
 * `tracker-stdio-v1`: the tracker on the v1 SDK over stdio, for hosts that
 * launch servers as child processes (legacy era: `initialize`). Only MCP
 * goes to stdout; diagnostics go to stderr (JSON lines, pino: `createDemoLogger`).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { exportPaceFrom, resolveRefsPort } from './server/cli-args.js';
import { closeOnStop } from './server/lifecycle.js';
import { createDemoLogger } from './server/logging.js';
import { composeTracker } from './server/compose.js';
import { loadTrackerIndex } from './server/discovery.js';
import { openStore } from './server/store.js';
import { startReferenceOrigin } from './server/reference-origin.js';
import { createTrackerServerV1 } from './server/server-v1.js';

const logger = createDemoLogger({ name: 'tracker (v1)' });
const store = await openStore();
// Report exports and image uploads are served from a port of their own (TRACKER_REFS_PORT, default a free one).
const origin = await startReferenceOrigin(store, { port: resolveRefsPort(process.env), logger });
const composed = composeTracker({ origin, index: await loadTrackerIndex(logger), logger });
const server = createTrackerServerV1({ composed, store, logger, exportPaceMs: exportPaceFrom() });
server.server.onerror = (error) => {
  console.error('tracker (v1): stdio error', error.message);
};
await server.connect(new StdioServerTransport());

closeOnStop(
  'tracker (v1)',
  async () => {
    await Promise.all([server.close(), origin.close()]);
    await store.close();
  },
  { stdin: true },
);
