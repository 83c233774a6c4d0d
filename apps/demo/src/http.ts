#!/usr/bin/env node
/**
 * `tracker-http`: the tracker on Streamable HTTP at
 * http://127.0.0.1:<port>/mcp (port from `--port`, `PORT`, default 3333;
 * the reference origin's from `TRACKER_REFS_PORT`, default a free one),
 * both protocol eras; `--sdk v1` serves the v1 SDK's server instead (the
 * 2025 era only). Callers sign in as the demo users alice or bob with the
 * bearer tokens it prints (`TRACKER_ALICE_TOKEN` / `TRACKER_BOB_TOKEN` fix
 * them); `--anonymous` serves every caller as one shared principal instead.
 * Logs go to stderr as JSON lines (pino, `createDemoLogger`). Stops cleanly
 * on SIGINT / SIGTERM.
 */
import { exportPaceFrom, resolvePort, resolveRefsPort, resolveSdk } from './server/cli-args.js';
import { sourceMapsFrom } from './console/console-files.js';
import { closeOnStop, runMain } from './server/lifecycle.js';
import { createDemoLogger } from './server/logging.js';
import { startHttpServer } from './server/node-http.js';
import { openStore } from './server/store.js';
import { createDemoTokens, DEMO_USERS } from './server/users.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sdk = resolveSdk(argv);
  const anonymous = argv.includes('--anonymous');
  const tokens = anonymous ? undefined : createDemoTokens(process.env);
  const logger = createDemoLogger();
  const running = await startHttpServer({
    port: resolvePort(argv, process.env),
    refsPort: resolveRefsPort(process.env),
    consoleSourceMaps: sourceMapsFrom(process.env),
    sdk,
    store: await openStore(),
    exportPaceMs: exportPaceFrom(),
    anonymous,
    tokens,
    logger,
  });
  console.error(
    `tracker: MCP over Streamable HTTP at ${running.url.href}, SDK ${sdk} (pipeline: ${running.composed.pipeline.map((entry) => entry.stage).join(' > ')} > tool handler)`,
  );
  if (running.origin !== undefined) console.error(`tracker: data references served at ${running.origin.baseUrl}`);
  if (tokens === undefined) console.error('tracker: --anonymous: every caller is the one principal "anonymous"');
  else {
    console.error('tracker: callers sign in with a bearer token (Authorization: Bearer <token>):');
    for (const user of DEMO_USERS)
      console.error(`  ${user.padEnd(5)} ${tokens[user]}  console: ${running.consoleUrl(user).href}`);
  }
  closeOnStop('tracker', () => running.close(), { announce: true });
}

runMain('tracker', main);
