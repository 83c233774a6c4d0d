/**
 * The operations endpoints on an address of their own (`metrics.listen`),
 * with Node's `http` and core's request listener, so the `Host` and `Origin`
 * checks of every other endpoint apply (bound to loopback, only the loopback
 * names are answered). Nothing is authenticated here: whoever reaches the
 * address may scrape, which is why it defaults to loopback.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@ext/core';
import { nodeListener } from '@ext/core/sdk-v2/server';

export interface OperationsListening {
  /** The address, e.g. `http://127.0.0.1:9464/`. */
  readonly url: URL;
  close(): Promise<void>;
}

function notFound(): Response {
  return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'Not found' } }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  });
}

/** Serves `handle` on `host:port`; resolves once it listens (a port in use rejects with Node's error). */
export async function listenOperations(
  handle: (request: Request) => Promise<Response | undefined>,
  options: { readonly port: number; readonly host: string; readonly logger: Logger },
): Promise<OperationsListening> {
  const fetch = async (request: Request) => (await handle(request)) ?? notFound();
  const server = createServer(nodeListener({ fetch }, { logger: options.logger }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => {
    options.logger.warn('gateway: the metrics listener failed', { error: String(error) });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: new URL(`http://${host}:${String(port)}/`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}
