/**
 * Test helpers for the official Events draft: its published examples, a
 * shape comparison against them, and a real webhook receiver that checks
 * every delivery's signature with the `standardwebhooks` package.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One of the sketch's published examples (test-fixtures/events-sketch). */
export function sketchExample(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`test-fixtures/events-sketch/${name}.json`, import.meta.url), 'utf8'));
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Where `actual` differs in shape from `example`: every key of the example
 * present with a value of the same JSON type, recursively (arrays through
 * their first item), and no key the example lacks (but a result's own
 * `_meta`); the values at `opaque`
 * paths (the example server's own payloads and schemas) are compared by type only.
 */
export function shapeDifferences(
  actual: unknown,
  example: unknown,
  opaque: readonly string[] = [],
  path = '',
): string[] {
  if (kind(actual) !== kind(example)) return [`${path || '/'}: ${kind(actual)} where the sketch has ${kind(example)}`];
  if (opaque.includes(path)) return [];
  if (Array.isArray(actual) && Array.isArray(example)) {
    return actual.length > 0 && example.length > 0 ? shapeDifferences(actual[0], example[0], opaque, `${path}/*`) : [];
  }
  if (kind(actual) !== 'object') return [];
  const ours = actual as Record<string, unknown>;
  const theirs = example as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
    // `_meta` is every MCP result's own (the 2026-07-28 era's SDK adds one); the sketch's examples omit it.
    if (key === '_meta' && path === '' && !(key in theirs)) continue;
    if (!(key in theirs)) differences.push(`${path}/${key}: not in the sketch`);
    else if (!(key in ours)) differences.push(`${path}/${key}: missing`);
    else differences.push(...shapeDifferences(ours[key], theirs[key], opaque, `${path}/${key}`));
  }
  return differences;
}

/** A delivery the receiver got. */
export interface ReceivedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the signature verified with the subscription's secret. */
  readonly verified: boolean;
  /** The status it was answered with. */
  readonly status: number;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** Statuses to answer with, in order; once used up, 200. */
  script(statuses: readonly number[]): void;
  close(): Promise<void>;
}

/** A Standard Webhooks secret for tests: `whsec_` and 32 random-looking bytes. */
export const TEST_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

/** A real HTTP server on 127.0.0.1 that verifies each delivery with `secret`. */
export async function startWebhookReceiver(secret: string = TEST_SECRET): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const received: ReceivedDelivery[] = [];
  let statuses: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      );
      let verified = true;
      try {
        verifier.verify(body, headers);
      } catch {
        verified = false;
      }
      const status = verified ? (statuses.shift() ?? 200) : 401;
      received.push({ headers, body, verified, status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/hooks/client-1`,
    received,
    script: (next) => {
      statuses = [...next];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
