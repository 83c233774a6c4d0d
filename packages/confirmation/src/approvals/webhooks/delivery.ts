/**
 * Sends one webhook message to one endpoint, signed per Standard Webhooks
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`). A network
 * error, a timeout, a 5xx or a 429 is tried again, up to `attempts` times
 * with exponential backoff and jitter, under the same `webhook-id` (so a
 * receiver can drop a duplicate) and a fresh timestamp and signature;
 * any other answer is final. Redirects are not followed: a signed body
 * goes only where it was addressed.
 */
import { randomUUID } from 'node:crypto';
import { ExtensionError } from '@ext/core';
import type { ResolvedEndpoint } from './options.js';

/** What a delivery needs beside the endpoint and the body. */
export interface DeliveryConfig {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly now: () => number;
}

/** First backoff, milliseconds; doubled per attempt, then between half and all of it is waited. */
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;

/** How one attempt ended. */
type AttemptResult =
  | { readonly done: true }
  | { readonly done: false; readonly retry: boolean; readonly reason: string; readonly status?: number };

/** A new message id (`webhook-id`). */
export function newMessageId(): string {
  return `msg_${randomUUID()}`;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1), with jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Whether an answer with this status may succeed when sent again. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

function signedHeaders(endpoint: ResolvedEndpoint, messageId: string, body: string, nowMs: number): Headers {
  const at = new Date(nowMs);
  return new Headers({
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
    'webhook-signature': endpoint.signer.sign(messageId, at, body),
  });
}

async function attempt(
  endpoint: ResolvedEndpoint,
  messageId: string,
  body: string,
  config: DeliveryConfig,
): Promise<AttemptResult> {
  let response: Response;
  try {
    response = await config.fetch(endpoint.url, {
      method: 'POST',
      headers: signedHeaders(endpoint, messageId, body, config.now()),
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'network error';
    return { done: false, retry: true, reason };
  }
  // The answer's body is not read: only its status counts, and the connection is freed.
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return { done: true };
  const { status } = response;
  return { done: false, retry: isRetryableStatus(status), reason: `answered ${status}`, status };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers `body` to `endpoint` under one message id; resolves once the
 * endpoint answered 2xx, throws `ExtensionError('WEBHOOK_DELIVERY_FAILED')`
 * (naming the endpoint by its origin only) when it never did.
 */
export async function deliver(endpoint: ResolvedEndpoint, body: string, config: DeliveryConfig): Promise<void> {
  const messageId = newMessageId();
  let last: AttemptResult = { done: false, retry: true, reason: 'not attempted' };
  let made = 0;
  while (made < config.attempts) {
    if (made > 0) await sleep(backoffMs(made));
    made += 1;
    last = await attempt(endpoint, messageId, body, config);
    if (last.done || !last.retry) break;
  }
  if (last.done) return;
  throw new ExtensionError(
    'transient',
    'WEBHOOK_DELIVERY_FAILED',
    `Approval webhook to ${endpoint.origin} failed after ${made} attempt(s): ${last.reason}`,
    { details: { endpoint: endpoint.origin, webhook_id: messageId, attempts: made, status: last.status } },
  );
}
