/**
 * Test fixtures: a webhook receiver on a real port that verifies every
 * delivery with `standardwebhooks`, and a Node server that serves a
 * fetch-shaped handler (the links) over real HTTP. Used by the tests only.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver saw it. */
export interface Delivery {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Whether `new Webhook(secret).verify(body, headers)` accepted it. */
  readonly verified: boolean;
  /** The body parsed, when it verified. */
  readonly payload: unknown;
  /** The status the receiver answered. */
  readonly status: number;
}

export interface Receiver {
  readonly url: string;
  readonly secret: string;
  readonly deliveries: Delivery[];
  readonly close: () => Promise<void>;
}

export interface FetchServer {
  readonly origin: string;
  readonly close: () => Promise<void>;
}

/** A fresh Standard Webhooks secret (32 random bytes). */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What `verify` made of a delivery; a refusal is recorded, for the test to assert on. */
function verify(
  verifier: Webhook,
  body: string,
  headers: Record<string, string>,
): { verified: boolean; payload: unknown } {
  try {
    return { verified: true, payload: verifier.verify(body, headers) };
  } catch (error) {
    return { verified: false, payload: error };
  }
}

async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    });
  return { origin: `http://127.0.0.1:${port}`, close };
}

/**
 * A receiver at `/hooks` verifying each delivery with `secret`; `respond`
 * picks the status of the nth delivery (from 0), 204 by default.
 */
export async function startReceiver(
  options: { readonly secret?: string; readonly respond?: (n: number) => number } = {},
): Promise<Receiver> {
  const secret = options.secret ?? newWebhookSecret();
  const verifier = new Webhook(secret);
  const deliveries: Delivery[] = [];
  const server = await listen((req, res) => {
    void readAll(req).then((bytes) => {
      const body = bytes.toString('utf8');
      const headers = flatHeaders(req.headers);
      const { verified, payload } = verify(verifier, body, headers);
      const status = options.respond?.(deliveries.length) ?? 204;
      deliveries.push({ headers, body, verified, payload, status });
      res.writeHead(status).end();
    });
  });
  return { url: `${server.origin}/hooks`, secret, deliveries, close: server.close };
}

/** Serves `handler` over HTTP; a request it does not answer gets a 404. */
export async function serveFetch(handler: (request: Request) => Promise<Response | undefined>): Promise<FetchServer> {
  let origin = '';
  const server = await listen((req, res) => {
    void (async () => {
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readAll(req);
      const request = new Request(new URL(req.url ?? '/', origin), {
        method: req.method ?? 'GET',
        headers: flatHeaders(req.headers),
        ...(body === undefined ? {} : { body }),
      });
      const response = (await handler(request)) ?? new Response('not here', { status: 404 });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  origin = server.origin;
  return server;
}
