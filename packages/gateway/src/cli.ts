#!/usr/bin/env node
/**
 * `mcp-ext-gateway --config gateway.yaml [--stdio]`: loads and checks the
 * config (an invalid field is named, and the gateway does not start), then
 * serves the gateway over Streamable HTTP or stdio until SIGINT or SIGTERM.
 * `lock` and `tools accept <tool>` pin the upstreams' tool definitions
 * (see `pins/commands.ts`) and exit; `approvals` lists and decides the
 * calls a running gateway holds for an operator; `--help` prints every
 * command and flag.
 */
import { ConfigurationError } from '@ext/core';
import { listen, type ListenOptions } from '@ext/core/sdk-v2/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { HELP, parseCliArgs, type ServeArgs } from './cli-args.js';
import { assertServable, listenRefusal } from './cli-refusals.js';
import { warnOfScopesNotGranted } from './local-caller.js';
import { loadConfig } from './config/load.js';
import { createGateway, type Gateway } from './gateway.js';
import { reloadOnSignalAndChange } from './reload/from-file.js';
import { runApprovalsCommand } from './approvals-commands.js';
import { acceptTool, lockTools, type CommandIo } from './pins/commands.js';

/** Logs go to stderr: on stdio, stdout carries the protocol. */
const logger = {
  warn: (message: string, data?: unknown) => {
    console.error(`[mcp-ext-gateway] ${message}`, data ?? '');
  },
  info: (message: string, data?: unknown) => {
    console.error(`[mcp-ext-gateway] ${message}`, data ?? '');
  },
};

async function serve(gateway: Gateway, stdio: boolean, listenOptions: ListenOptions) {
  if (stdio) {
    const handle = serveStdio(() => gateway.createServer());
    return () => handle.close();
  }
  const server = await listen(gateway.http, { port: 8080, ...listenOptions, logger });
  logger.info(`serving ${server.url.href}`);
  return () => server.close();
}

/** The pin commands report on stdout (nothing else is written there) and log to stderr. */
const commandIo: CommandIo = {
  print: (line) => {
    console.log(line);
  },
  logger,
};

async function main(): Promise<void> {
  const args = parseCliArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(args);
    process.exitCode = 2;
    return;
  }
  if (args.command === 'help') console.log(HELP);
  else if (args.command === 'lock') await lockTools(await loadConfig(args.config), args.out, commandIo);
  else if (args.command === 'tools accept') await acceptTool(await loadConfig(args.config), args.tool, commandIo);
  else if (args.command === 'approvals') await runApprovalsCommand(args, commandIo);
  else await serveUntilStopped(args);
}

async function serveUntilStopped(args: ServeArgs): Promise<void> {
  const { config, manifests } = await loadConfig(args.config);
  assertServable(args.config, config, args.stdio);
  const gateway = await createGateway(config, { manifests, logger });
  if (args.stdio) warnOfScopesNotGranted(gateway.tools, config.identity, logger);
  const stop = await serve(gateway, args.stdio, config.listen ?? {}).catch(async (error: unknown) => {
    // Stopping what started (upstream processes included) lets the process end with the refusal (GW-34).
    await gateway.close();
    throw args.stdio ? error : listenRefusal(args.config, error);
  });
  // SIGHUP, or a change of the config or a manifest it names, reloads it (GW-49).
  const reloads = reloadOnSignalAndChange(gateway, args.config, logger, {
    files: [args.config, ...(config.manifests ?? [])],
  });
  const shutdown = () => {
    reloads.close();
    void stop()
      .then(() => gateway.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  if (args.stdio) process.stdin.once('end', shutdown);
}

main().catch((error: unknown) => {
  const known = ConfigurationError.isInstance(error) || (error instanceof Error && 'code' in error);
  console.error(`mcp-ext-gateway: ${error instanceof Error ? error.message : String(error)}`);
  if (!known && error instanceof Error && error.stack !== undefined) console.error(error.stack);
  process.exitCode = 1;
});
