/** A fake MCP Registry over HTTP for tests: serves `/v0.1/servers` pages and injects faults on request. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Entry = Record<string, unknown>;

function updatedAt(entry: Entry): number {
  const meta = entry._meta as Record<string, { updatedAt?: string } | undefined> | undefined;
  return Date.parse(meta?.['io.modelcontextprotocol.registry/official']?.updatedAt ?? '1970-01-01T00:00:00Z');
}

/** What a test makes the fake registry do for one page request. */
export type PageFault = 'status-500' | 'not-json' | 'huge' | 'repeat-cursor' | 'redirect' | 'no-servers';

export interface FakeRegistry {
  readonly url: string;
  /** Every request received, as path + query. */
  readonly requests: string[];
  /** The entries it serves; tests add and change them between syncs. */
  entries: Entry[];
  /** Faults by page number (1-based) of the next sync. */
  faults: Map<number, PageFault>;
  close(): Promise<void>;
}

/**
 * A stand-in for the MCP Registry on 127.0.0.1: `GET /v0.1/servers` with
 * `limit`, `cursor` (opaque) and `updated_since`, in the registry's list
 * response format. For the sync tests only.
 */
export async function startFakeRegistry(entries: Entry[]): Promise<FakeRegistry> {
  const state: FakeRegistry = {
    url: '',
    requests: [],
    entries,
    faults: new Map(),
    close: () => Promise.resolve(),
  };
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    state.requests.push(`${url.pathname}${url.search}`);
    if (url.pathname !== '/v0.1/servers') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? '30');
    const cursor = url.searchParams.get('cursor');
    if (cursor === 'again') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ servers: [], metadata: { nextCursor: 'again' } }));
      return;
    }
    const offset = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    const page = cursor === null ? 1 : offset / limit + 1;
    const since = url.searchParams.get('updated_since');
    const pool =
      since === null ? state.entries : state.entries.filter((entry) => updatedAt(entry) >= Date.parse(since));
    const slice = pool.slice(offset, offset + limit);
    const more = offset + limit < pool.length;
    const nextCursor = more ? Buffer.from(String(offset + limit)).toString('base64url') : undefined;
    const fault = state.faults.get(page);
    const json = (body: unknown): void => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    switch (fault) {
      case 'status-500':
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"Internal"}');
        return;
      case 'not-json':
        response.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>');
        return;
      case 'huge':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`{"servers":[],"padding":"${'x'.repeat(64 * 1024)}"}`);
        return;
      case 'repeat-cursor':
        json({ servers: slice, metadata: { nextCursor: 'again', count: slice.length } });
        return;
      case 'redirect':
        response.writeHead(302, { location: 'https://elsewhere.example/v0.1/servers' }).end();
        return;
      case 'no-servers':
        json({ items: slice });
        return;
      default:
        json({
          servers: slice,
          metadata: { ...(nextCursor === undefined ? {} : { nextCursor }), count: slice.length },
        });
    }
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  });
}
