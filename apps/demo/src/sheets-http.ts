#!/usr/bin/env node
/**
 * `sheets-http`: the sheets server on Streamable HTTP at
 * http://127.0.0.1:<port>/mcp (`--port`, `PORT`, default 3334). It imports
 * references only from the origins in `SHEETS_ALLOWED_ORIGINS`
 * (comma-separated, e.g. the tracker's reference origin
 * `http://127.0.0.1:4100`). Stops cleanly on SIGINT / SIGTERM.
 */
import { resolvePort } from './server/cli-args.js';
import { closeOnStop, runMain } from './server/lifecycle.js';
import { startSheetsServer } from './sheets/server.js';

const DEFAULT_SHEETS_PORT = 3334;

async function main(): Promise<void> {
  const allowedOrigins = (process.env.SHEETS_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (allowedOrigins.length === 0)
    console.error('sheets: SHEETS_ALLOWED_ORIGINS is empty, so every import will be refused (ORIGIN_NOT_ALLOWED)');
  const argv = process.argv.slice(2);
  const port =
    argv.some((arg) => arg.startsWith('--port')) || process.env.PORT !== undefined
      ? resolvePort(argv, process.env)
      : DEFAULT_SHEETS_PORT;
  const running = await startSheetsServer({ port, allowedOrigins });
  console.error(
    `sheets: MCP over Streamable HTTP at ${running.url.href}; imports from ${allowedOrigins.join(', ') || '(nowhere)'}`,
  );
  closeOnStop('sheets', () => running.close(), { announce: true });
}

runMain('sheets', main);
