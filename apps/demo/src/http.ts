#!/usr/bin/env node
/**
 * `tracker-http`: the tracker on Streamable HTTP at
 * http://127.0.0.1:<port>/mcp (port from `--port`, `PORT`, default 3333),
 * both protocol eras; `--sdk v1` serves the v1 SDK's server instead (the
 * 2025 era only). Stops cleanly on SIGINT / SIGTERM.
 */
import { resolvePort, resolveSdk, startHttpServer } from './node-http.js';
import { exportPaceFrom, openStore } from './server.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sdk = resolveSdk(argv);
  const running = await startHttpServer({ port: resolvePort(argv, process.env), sdk, store: await openStore(), exportPaceMs: exportPaceFrom() });
  console.error(`tracker: MCP over Streamable HTTP at ${running.url.href}, SDK ${sdk} (pipeline: ${running.composed.pipeline.map((entry) => entry.stage).join(' > ')} > tool handler)`);
  const stop = (signal: NodeJS.Signals): void => {
    console.error(`tracker: ${signal} received, shutting down`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('tracker: shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error('tracker:', error instanceof Error ? error.message : error);
  process.exit(1);
});
