/**
 * Test support for the lean call path's differential tests: a stdio MCP
 * server from npm served over Streamable HTTP in the 2026-07-28 era (an SDK
 * v2 server per request whose tools are the stdio server's, each call passed
 * to one SDK client of it), and a scripted 2026-07-28 upstream on `node:http`
 * that answers each tool with what a test asks for, well-formed or not, as
 * JSON or as an event stream, and records the raw headers of every call.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { binOf } from './servers.js';

export interface Front {
  readonly url: string;
  close(): Promise<void>;
}

/** The npm server `packageName` over stdio (`args` after its bin, `env` added), behind a 2026-07-28 HTTP front. */
export async function stdioBehindHttp(
  packageName: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<Front> {
  const client = new Client({ name: 'lean-front', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [binOf(packageName), ...args],
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'ignore',
    }),
  );
  /* eslint-disable @typescript-eslint/no-deprecated -- the low-level Server passes the stdio server's tools and results on as they are */
  const front = (): Server => {
    const server = new Server({ name: `front-${packageName}`, version: '0.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => client.listTools());
    server.setRequestHandler('tools/call', (request) => client.callTool(request.params));
    return server;
  };
  /* eslint-enable @typescript-eslint/no-deprecated */
  const handler = createMcpHandler(front, { legacy: 'reject' });
  const listening = await listen(handler, { port: 0, logger: silentLogger });
  return {
    url: String(listening.url),
    async close() {
      await listening.close();
      await client.close();
    },
  };
}

/** What the scripted upstream answers to one call: a status, a content type and a body, or a cut connection. */
export interface Scripted {
  readonly status?: number;
  readonly contentType?: string;
  /** The body; a function gets the call's JSON-RPC id. */
  readonly body: string | ((id: unknown) => string);
  /** Ends the connection after the body, without ending the response. */
  readonly cut?: boolean;
}

/** A tool the scripted upstream lists. */
export interface ScriptedTool {
  readonly name: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly answer: Scripted;
}

export interface ScriptedUpstream extends Front {
  /** The raw header names of each `tools/call` request, in the order they came. */
  readonly callHeaders: string[][];
}

/** One JSON-RPC message as an event of an event stream. */
export function event(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** A JSON-RPC result for `id`, in the 2026-07-28 era's shape unless `result` says otherwise. */
export function resultFor(id: unknown, result: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result } };
}

interface Received {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: { readonly name?: string; readonly notifications?: unknown };
}

async function bodyOf(request: IncomingMessage): Promise<Received> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received;
}

function json(response: ServerResponse, message: unknown): void {
  const body = JSON.stringify(message);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** What a 2026-07-28 server says of caching a discovery or a listing: nothing may be kept. */
const CACHE_HINTS = { ttlMs: 0, cacheScope: 'private' };

/** Answers `server/discover`, `tools/list` and, per tool, `tools/call` as `tools` script it. */
export async function scriptedUpstream(tools: readonly ScriptedTool[]): Promise<ScriptedUpstream> {
  const callHeaders: string[][] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((message) => {
      const { id, method } = message;
      if (method === 'server/discover') {
        json(
          response,
          resultFor(id, {
            ...CACHE_HINTS,
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: { listChanged: true } },
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '0.0.0' } },
          }),
        );
        return;
      }
      if (method === 'tools/list') {
        json(
          response,
          resultFor(id, {
            ...CACHE_HINTS,
            tools: tools.map(({ name, inputSchema, outputSchema }) => ({
              name,
              inputSchema: inputSchema ?? { type: 'object' },
              ...(outputSchema === undefined ? {} : { outputSchema }),
            })),
          }),
        );
        return;
      }
      // Tool-list changes are listened for on a stream kept open, acknowledged as a server would (none is sent).
      if (method === 'subscriptions/listen') {
        const acknowledged = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: {
            _meta: { 'io.modelcontextprotocol/subscriptionId': id },
            notifications: message.params?.notifications,
          },
        };
        response.writeHead(200, { 'content-type': 'text/event-stream' }).write(event(acknowledged));
        return;
      }
      const tool = tools.find((candidate) => candidate.name === message.params?.name);
      if (method !== 'tools/call' || tool === undefined) {
        json(response, { jsonrpc: '2.0', id, error: { code: -32601, message: `no ${String(method)} here` } });
        return;
      }
      callHeaders.push(request.rawHeaders.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase()));
      const { status = 200, contentType = 'application/json', body, cut = false } = tool.answer;
      const text = typeof body === 'function' ? body(id) : body;
      response.writeHead(status, { 'content-type': contentType });
      if (cut) {
        response.flushHeaders();
        response.write(text, () => response.socket?.destroy());
      } else response.end(text);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/mcp`,
    callHeaders,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
