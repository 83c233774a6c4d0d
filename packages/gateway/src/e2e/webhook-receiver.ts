/** A webhook receiver for the end-to-end tests: a real HTTP server on a free port that hands over each delivery it gets. */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeAfter } from './support.js';

export interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface WebhookReceiver {
  readonly url: string;
  /** Its Standard Webhooks secret (`whsec_…`). */
  readonly secret: string;
  /** The next delivery (already received, or the next to arrive). */
  next(): Promise<Delivery>;
}

/** Starts a receiver answering 204 to every POST; closed after the test. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const waiting: ((delivery: Delivery) => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const delivery = { headers, body: Buffer.concat(chunks).toString('utf8') };
      const taker = waiting.shift();
      if (taker === undefined) received.push(delivery);
      else taker(delivery);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeAfter(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/hooks`,
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    next: () => {
      const ready = received.shift();
      return ready === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(ready);
    },
  };
}
