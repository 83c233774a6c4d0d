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
import type { WebhookSigner } from './signing.js';

/** Where one message goes. */
export interface WebhookTarget {
  readonly url: string;
  readonly signer: WebhookSigner;
  /** Headers sent beside the signature ones (which they cannot replace). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** How messages are sent. */
export interface WebhookDeliveryConfig {
  readonly fetch: typeof fetch;
  /** Time allowed to one attempt, milliseconds. */
  readonly timeoutMs: number;
  /** Attempts per message, the first included. */
  readonly attempts: number;
  /** Wall clock in milliseconds, for `webhook-timestamp`. */
  readonly now: () => number;
  /**
   * Runs before every attempt (retries included); a string it answers
   * refuses the attempt as final, with that reason. For checks that must
   * hold when the request is made, not only when the URL was accepted,
   * such as where the host name resolves to now.
   */
  readonly beforeAttempt?: ((url: URL) => Promise<string | undefined>) | undefined;
  /** First backoff, milliseconds; doubled per attempt up to `maxBackoffMs`. Default 250. */
  readonly backoffMs?: number | undefined;
  /** Default 10000. */
  readonly maxBackoffMs?: number | undefined;
}

/** How a message ended: delivered, or not, with the last attempt's reason and HTTP status. */
export type WebhookOutcome =
  | { readonly delivered: true; readonly messageId: string; readonly attempts: number; readonly status: number }
  | {
      readonly delivered: false;
      readonly messageId: string;
      readonly attempts: number;
      readonly reason: string;
      readonly status?: number | undefined;
      /** Whether the last failure was one a later attempt could have cured (attempts ran out). */
      readonly retryable: boolean;
    };

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;

type AttemptResult =
  | { readonly done: true; readonly status: number }
  | { readonly done: false; readonly retry: boolean; readonly reason: string; readonly status?: number };

/** A new message id (`webhook-id`). */
export function newMessageId(): string {
  return `msg_${randomUUID()}`;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1), with jitter: between half and all of the doubled backoff. */
export function backoffMs(
  attempt: number,
  random: () => number = Math.random,
  first = BACKOFF_MS,
  max = MAX_BACKOFF_MS,
): number {
  const ceiling = Math.min(max, first * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Whether an answer with this status may succeed when sent again. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

function signedHeaders(target: WebhookTarget, messageId: string, body: string, nowMs: number): Headers {
  const headers = new Headers(target.headers);
  headers.set('content-type', 'application/json');
  headers.set('webhook-id', messageId);
  headers.set('webhook-timestamp', String(Math.floor(nowMs / 1000)));
  headers.set('webhook-signature', target.signer.sign(messageId, new Date(nowMs), body));
  return headers;
}

async function attempt(
  target: WebhookTarget,
  messageId: string,
  body: string,
  config: WebhookDeliveryConfig,
): Promise<AttemptResult> {
  if (config.beforeAttempt !== undefined) {
    const refused = await config.beforeAttempt(new URL(target.url));
    if (refused !== undefined) return { done: false, retry: false, reason: refused };
  }
  let response: Response;
  try {
    response = await config.fetch(target.url, {
      method: 'POST',
      headers: signedHeaders(target, messageId, body, config.now()),
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
  const { status } = response;
  if (response.ok) return { done: true, status };
  return { done: false, retry: isRetryableStatus(status), reason: `answered ${String(status)}`, status };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers `body` to `target` under one message id (`messageId`, default a
 * new one) and tells how it ended; never throws for a failed delivery.
 */
export async function sendWebhook(
  target: WebhookTarget,
  body: string,
  config: WebhookDeliveryConfig,
  messageId: string = newMessageId(),
): Promise<WebhookOutcome> {
  let last: AttemptResult = { done: false, retry: true, reason: 'not attempted' };
  let made = 0;
  while (made < config.attempts) {
    if (made > 0) await sleep(backoffMs(made, Math.random, config.backoffMs, config.maxBackoffMs));
    made += 1;
    last = await attempt(target, messageId, body, config);
    if (last.done || !last.retry) break;
  }
  if (last.done) return { delivered: true, messageId, attempts: made, status: last.status };
  return {
    delivered: false,
    messageId,
    attempts: made,
    reason: last.reason,
    status: last.status,
    retryable: last.retry,
  };
}
