/**
 * A benchmark MCP server in its own process: the `echo` tool over
 * Streamable HTTP on 127.0.0.1, through the core's `createHttpHandler`
 * (both eras), bare or with extensions composed (`bare`, `adapter`, `full`
 * or `first:<n>`, see `stack.ts`). Started by
 * `full-stack.ts` with `fork`; it talks over the IPC channel only.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { silentLogger } from '@ext/core/kit';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { failStart, serveCommands, tell } from './child.js';
import {
  buildStack,
  echo,
  INPUT,
  parseStackArgument,
  TOOL,
  TOOL_META,
  type BuiltStack,
  type StackKind,
} from './stack.js';

/** Parent -> child. */
export type ServerCommand = { readonly type: 'memory' } | { readonly type: 'stop' };

/** Child -> parent. */
export type ServerAnswer =
  | { readonly type: 'ready'; readonly url: string }
  | { readonly type: 'memory'; readonly heapUsed: number; readonly rss: number };

const SERVER_INFO = { name: 'bench-server', version: '0.0.0' };

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Node request -> fetch `Request`: MCP messages are small JSON, read whole. */
async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
  return new Request(new URL(req.url ?? '/', base), { method, headers, body });
}

/** fetch `Response` -> node response; streamed, since an SSE answer stays open. */
async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body), res);
}

async function serve(stack: StackKind): Promise<void> {
  const built: BuiltStack | undefined = stack.kind === 'bare' ? undefined : buildStack(stack);
  // The benchmark's one client is every caller: it runs as the one shared principal.
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer(SERVER_INFO);
      if (built === undefined) mcp.registerTool(TOOL, { inputSchema: INPUT }, echo);
      else
        extendServer(mcp, built.composed, { store: built.store, logger: silentLogger }).registerTool(
          TOOL,
          { inputSchema: INPUT, _meta: TOOL_META },
          echo,
        );
      return mcp;
    },
    { anonymous: 'shared', logger: silentLogger },
  );
  const server = createServer((req, res) => {
    toRequest(req, base)
      .then((request) => handler.fetch(request))
      .then((response) => send(res, response))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          console.error('bench server: a request failed', error);
          res.writeHead(500).end();
        } else {
          // A client closing its SSE stream mid-answer ends here: nothing left to tell it.
          res.destroy();
        }
      });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  serveCommands(
    () => {
      globalThis.gc?.();
      const usage = process.memoryUsage();
      return Promise.resolve({ type: 'memory', heapUsed: usage.heapUsed, rss: usage.rss } satisfies ServerAnswer);
    },
    async () => {
      server.closeAllConnections();
      server.close();
      await handler.close();
      await built?.close();
    },
  );
  tell({ type: 'ready', url: `${base}/mcp` } satisfies ServerAnswer);
}

const stack = parseStackArgument(process.argv[2]);
if (stack !== undefined) {
  serve(stack).catch(failStart);
} else {
  console.error(`http-server: expected bare, adapter, full or first:<n>, got ${JSON.stringify(process.argv[2])}`);
  process.exitCode = 2;
}
