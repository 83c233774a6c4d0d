#!/usr/bin/env node
/**
 * `tracker-http`: the tracker on Streamable HTTP at
 * http://127.0.0.1:<port>/mcp (port from `--port`, `PORT`, default 3333),
 * both protocol eras; `--sdk v1` serves the v1 SDK's server instead (the
 * 2025 era only). Callers sign in as the demo users alice or bob with the
 * bearer tokens it prints (`TRACKER_ALICE_TOKEN` / `TRACKER_BOB_TOKEN` fix
 * them); `--anonymous` serves every caller as one shared principal instead.
 * Stops cleanly on SIGINT / SIGTERM.
 */
import { closeOnStop, runMain } from './lifecycle.js';
import { resolvePort, resolveSdk, startHttpServer } from './node-http.js';
import { exportPaceFrom, openStore } from './server.js';
import { createDemoTokens, DEMO_USERS } from './users.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sdk = resolveSdk(argv);
  const anonymous = argv.includes('--anonymous');
  const tokens = anonymous ? undefined : createDemoTokens(process.env);
  const running = await startHttpServer({ port: resolvePort(argv, process.env), sdk, store: await openStore(), exportPaceMs: exportPaceFrom(), anonymous, tokens });
  console.error(`tracker: MCP over Streamable HTTP at ${running.url.href}, SDK ${sdk} (pipeline: ${running.composed.pipeline.map((entry) => entry.stage).join(' > ')} > tool handler)`);
  if (tokens === undefined) console.error('tracker: --anonymous: every caller is the one principal "anonymous"');
  else {
    console.error('tracker: callers sign in with a bearer token (Authorization: Bearer <token>):');
    for (const user of DEMO_USERS) console.error(`  ${user.padEnd(5)} ${tokens[user]}  console: ${running.consoleUrl(user).href}`);
  }
  closeOnStop('tracker', () => running.close(), { announce: true });
}

runMain('tracker', main);
