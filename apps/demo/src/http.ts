#!/usr/bin/env node
/**
 * `tracker-http`: the tracker on Streamable HTTP at
 * http://127.0.0.1:<port>/mcp (port from `--port`, `PORT`, default 3333),
 * both protocol eras; `--sdk v1` serves the v1 SDK's server instead (the
 * 2025 era only). Stops cleanly on SIGINT / SIGTERM.
 */
import { closeOnStop, runMain } from './lifecycle.js';
import { resolvePort, resolveSdk, startHttpServer } from './node-http.js';
import { exportPaceFrom, openStore } from './server.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sdk = resolveSdk(argv);
  const running = await startHttpServer({ port: resolvePort(argv, process.env), sdk, store: await openStore(), exportPaceMs: exportPaceFrom() });
  console.error(`tracker: MCP over Streamable HTTP at ${running.url.href}, SDK ${sdk} (pipeline: ${running.composed.pipeline.map((entry) => entry.stage).join(' > ')} > tool handler)`);
  closeOnStop('tracker', () => running.close(), { announce: true });
}

runMain('tracker', main);
