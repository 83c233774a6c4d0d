/**
 * The gateway benchmark's two reference relays, one per process, in front of
 * the upstream at the URL they are given, each on 127.0.0.1:
 *
 * - `relay`: a raw HTTP relay, `node:http` and nothing else. Each request is
 *   read whole and sent on to the upstream (same method, path and headers,
 *   the host rewritten) over keep-alive sockets; the upstream's answer is
 *   read whole and sent back. No MCP at all: what one more HTTP hop costs.
 * - `sdk-relay`: the smallest MCP gateway the SDK allows. A bare `McpServer`
 *   per request with one `write` tool whose handler calls the upstream's
 *   through one plain SDK client, served with core's `createHttpHandler` and
 *   `listen`. No extensions, no `@ext/gateway`: what an SDK server in front
 *   of an SDK client costs before any policy.
 *
 * Started by `gateway.ts` with `fork`; it talks over the IPC channel only.
 */
import { once } from 'node:events';
import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { failStart, serveCommands, tell } from './child.js';
import { isRelayKind, MODERN_PROTOCOL_VERSION, WRITE_TOOL, type RelayKind } from './gateway-setup.js';

/** Child -> parent, once it serves. */
export interface RelayReady {
  readonly type: 'ready';
  readonly url: string;
}

/** Headers of one connection, not of the message: each hop sets its own (and the length is set whole). */
const HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** `headers` with the hop's own left out and the length of the whole `body` set. */
function relayedHeaders(headers: IncomingHttpHeaders, body: Buffer): IncomingHttpHeaders {
  const kept = Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name));
  return { ...Object.fromEntries(kept), 'content-length': String(body.length) };
}

/** The whole body of `message`; rejects if it fails or is cut short. */
async function readBody(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Relayed {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Sends one request to `target` over `agent` and reads the answer whole; rejects if the upstream cannot be reached. */
function forward(target: URL, agent: Agent, incoming: IncomingMessage, body: Buffer): Promise<Relayed> {
  const headers = { ...relayedHeaders(incoming.headers, body), host: target.host };
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { method: incoming.method, headers, agent }, (answer) => {
      readBody(answer).then((answerBody) => {
        resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: answerBody });
      }, reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** One request relayed: the upstream's answer, or 502 when it cannot be reached or answer whole. */
async function relayOne(
  upstream: URL,
  agent: Agent,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  let answer: Relayed;
  try {
    // The origin written out: a path such as `//host/` must not name another host.
    const target = new URL(`${upstream.origin}${incoming.url ?? '/'}`);
    answer = await forward(target, agent, incoming, await readBody(incoming));
  } catch (error) {
    outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`relay: ${String(error)}\n`);
    return;
  }
  outgoing.writeHead(answer.status, relayedHeaders(answer.headers, answer.body)).end(answer.body);
}

/** The raw relay: every request to `upstream`'s origin, same path; resolves to its own URL once it listens. */
async function rawRelay(upstream: URL): Promise<string> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((incoming, outgoing) => {
    relayOne(upstream, agent, incoming, outgoing).catch(() => outgoing.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  serveCommands(
    () => Promise.reject(new Error('the relay answers no command')),
    async () => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
      agent.destroy();
    },
  );
  const { port } = server.address() as AddressInfo;
  return new URL(upstream.pathname, `http://127.0.0.1:${String(port)}`).href;
}

/** A bare server with the one tool, built per request (the 2026-07-28 era), each call passed to `client`. */
function relayServer(client: Client): McpServer {
  const mcp = new McpServer({ name: 'bench-sdk-relay', version: '0.0.0' });
  mcp.registerTool(
    WRITE_TOOL,
    { description: "Calls the upstream's write.", inputSchema: z.object({ text: z.string() }) },
    async (args) => await client.callTool({ name: WRITE_TOOL, arguments: args }),
  );
  return mcp;
}

/** The SDK relay: one plain client of the upstream, pinned to the 2026-07-28 era like the benchmark's own. */
async function sdkRelay(upstream: URL): Promise<string> {
  const client = new Client(
    { name: 'bench-sdk-relay', version: '0.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  await client.connect(new StreamableHTTPClientTransport(upstream));
  const handler = createHttpHandler(() => relayServer(client), { logger: silentLogger });
  const listening = await listen(handler, { port: 0 });
  serveCommands(
    () => Promise.reject(new Error('the SDK relay answers no command')),
    async () => {
      await listening.close();
      await client.close();
    },
  );
  return listening.url.href;
}

async function serve(kind: RelayKind, upstreamUrl: string): Promise<void> {
  const upstream = new URL(upstreamUrl);
  const url = kind === 'relay' ? await rawRelay(upstream) : await sdkRelay(upstream);
  tell({ type: 'ready', url } satisfies RelayReady);
}

const [kind, upstreamUrl] = process.argv.slice(2);
if (isRelayKind(kind) && upstreamUrl !== undefined) {
  serve(kind, upstreamUrl).catch(failStart);
} else {
  console.error('gateway-relay: expected relay or sdk-relay and the upstream URL');
  process.exitCode = 2;
}
