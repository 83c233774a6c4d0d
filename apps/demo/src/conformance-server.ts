#!/usr/bin/env node
/**
 * `tracker-conformance`: the tracker on Streamable HTTP with the fixtures the
 * official MCP conformance suite calls added to every instance, so the suite
 * judges the composed extension stack. Port from `--port`, `PORT`, default 3334.
 */
import { resolvePort } from './server/cli-args.js';
import { registerConformanceFixtures } from './conformance-fixtures/register.js';
import { closeOnStop, runMain } from './server/lifecycle.js';
import { startHttpServer } from './server/node-http.js';

async function main(): Promise<void> {
  const running = await startHttpServer({
    port: resolvePort(process.argv.slice(2), { PORT: process.env.PORT ?? '3334' }),
    // The official suite sends no credentials: its callers are one shared principal.
    anonymous: true,
    extend: registerConformanceFixtures,
  });
  console.error(`tracker: conformance fixtures over Streamable HTTP at ${running.url.href}`);
  closeOnStop('tracker', () => running.close());
}

runMain('tracker', main);
