#!/usr/bin/env node
/**
 * `tracker-stdio`: the tracker over stdio, for hosts that launch servers as
 * child processes. The opening message picks the era (`server/discover` for
 * 2026-07-28, `initialize` for the legacy era). Only MCP goes to stdout;
 * diagnostics go to stderr (JSON lines, pino: `createDemoLogger`).
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { exportPaceFrom, resolveRefsPort } from './server/cli-args.js';
import { closeOnStop } from './server/lifecycle.js';
import { createDemoLogger } from './server/logging.js';
import { composeTracker } from './server/compose.js';
import { createTrackerServer } from './server/server.js';
import { loadTrackerIndex } from './server/discovery.js';
import { openStore } from './server/store.js';
import { startReferenceOrigin } from './server/reference-origin.js';

const logger = createDemoLogger();
const store = await openStore();
// Report exports and image uploads are served from a port of their own (TRACKER_REFS_PORT, default a free one).
const origin = await startReferenceOrigin(store, { port: resolveRefsPort(process.env), logger });
const composed = composeTracker({ origin, index: await loadTrackerIndex(logger), logger });
const handle = serveStdio(() => createTrackerServer({ composed, store, logger, exportPaceMs: exportPaceFrom() }), {
  onerror: (error) => {
    console.error('tracker: stdio error', error.message);
  },
});

closeOnStop(
  'tracker',
  async () => {
    await Promise.all([handle.close(), origin.close()]);
    await store.close();
  },
  { stdin: true },
);
