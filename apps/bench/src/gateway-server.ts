/**
 * A gateway of the benchmark in its own process: `@ext/gateway` with the
 * config of one mode (`plain`: no policy, `policy`: the full policy, see
 * `gateway-setup.ts`) in front of the upstream at the URL it is given (or
 * of the stdio upstream, which it starts, when told `stdio:everything`),
 * state in the SQLite file it is given, served with core's `listen` on
 * 127.0.0.1. In front of the full-policy gateway sits what an OAuth layer
 * would be: a bearer token names the caller and grants the tool's scope
 * (`fetch(request, { authInfo })`). Started by `gateway.ts` with `fork`.
 */
import { consoleLogger } from '@ext/core/kit';
import { type Logger } from '@ext/core';
import { listen, type ServableHandler } from '@ext/core/sdk-v2/server';
import { createGateway, parseConfig, type Gateway } from '@ext/gateway';
import { failStart, serveCommands, tell } from './child.js';
import { callerAuthInfo, gatewayConfig, isGatewayMode, STDIO_UPSTREAM, type GatewayMode } from './gateway-setup.js';
import { everythingCommand } from './gateway-stdio.js';

/** Child -> parent, once it serves. */
export interface GatewayReady {
  readonly type: 'ready';
  readonly url: string;
}

/** Warnings and errors to stderr, except the one start-up notice that callers share a principal (chosen here). */
const logger: Logger = {
  warn(message, details) {
    if (!message.includes("anonymous: 'shared'")) consoleLogger.warn(message, details);
  },
};

/** The gateway's handler, with the full-policy gateway's callers identified in front of it. */
function servable(gateway: Gateway, mode: GatewayMode): ServableHandler {
  if (mode === 'plain') return gateway.http;
  return {
    fetch: (request) => gateway.http.fetch(request, { authInfo: callerAuthInfo(request.headers.get('authorization')) }),
    close: () => gateway.http.close(),
  };
}

async function serve(mode: GatewayMode, upstreamUrl: string, sqlitePath: string): Promise<void> {
  const upstream = upstreamUrl === STDIO_UPSTREAM ? everythingCommand() : upstreamUrl;
  const config = parseConfig(JSON.stringify(gatewayConfig(mode, upstream, sqlitePath)));
  const gateway = await createGateway(config, { logger });
  const listening = await listen(servable(gateway, mode), { port: 0 });
  serveCommands(
    () => Promise.reject(new Error('the gateway answers no command')),
    async () => {
      await listening.close();
      await gateway.close();
    },
  );
  tell({ type: 'ready', url: listening.url.href } satisfies GatewayReady);
}

const [mode, upstreamUrl, sqlitePath] = process.argv.slice(2);
if (isGatewayMode(mode) && upstreamUrl !== undefined && sqlitePath !== undefined) {
  serve(mode, upstreamUrl, sqlitePath).catch(failStart);
} else {
  console.error(
    `gateway-server: expected plain or policy, the upstream URL (or ${STDIO_UPSTREAM}) and the SQLite path`,
  );
  process.exitCode = 2;
}
