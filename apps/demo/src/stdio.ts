#!/usr/bin/env node
/**
 * `tracker-stdio`: the tracker over stdio, for hosts that launch servers as
 * child processes. The opening message picks the era (`server/discover` for
 * 2026-07-28, `initialize` for the legacy era). Only MCP goes to stdout;
 * diagnostics go to stderr.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { composeTracker, createTrackerServer, exportPaceFrom, openStore } from './server.js';

const composed = composeTracker();
const store = await openStore();
const handle = serveStdio(() => createTrackerServer({ composed, store, exportPaceMs: exportPaceFrom() }), {
  onerror: (error) => {
    console.error('tracker: stdio error', error.message);
  },
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  Promise.all([handle.close(), store.close()]).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('tracker: shutdown failed', error);
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// The host closing our stdin is the usual way a stdio server is told to stop.
process.stdin.once('end', stop);
