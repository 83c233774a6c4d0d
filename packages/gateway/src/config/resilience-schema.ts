/**
 * The schemas of resilience settings: an upstream's `retry` (how faults are
 * retried) and `breaker` (when calls stop reaching it), and a tool's policy
 * `retry` (whether its calls are safe to repeat). Their defaults are the
 * constants below, which the upstream side applies.
 */
import Type, { type Static } from 'typebox';

/** Tries in all (the first included) when neither the upstream nor the tool says. */
export const DEFAULT_RETRY_ATTEMPTS = 3;
/** The first wait before a retry, in milliseconds (each later one about doubles, with jitter). */
export const DEFAULT_RETRY_INITIAL_DELAY_MS = 100;
/** The longest wait before a retry, in milliseconds. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 2000;
/** Failed requests in a row that open an upstream's breaker. */
export const DEFAULT_BREAKER_FAILURES = 5;
/** How long an open breaker refuses calls before it lets one through to try the upstream, in milliseconds. */
export const DEFAULT_BREAKER_HALF_OPEN_AFTER_MS = 10_000;

const MAX_ATTEMPTS = 10;

const Attempts = (description: string, fallback?: number) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_ATTEMPTS,
    ...(fallback === undefined ? {} : { default: fallback }),
    description,
  });

const Milliseconds = (fallback: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ minimum, maximum, default: fallback, description });

/** How an upstream's transient faults are retried, within each call's `timeoutMs`. */
export const UpstreamRetrySchema = Type.Object(
  {
    attempts: Type.Optional(
      Attempts(
        'Tries of a call in all, the first included (`1`: never retried), unless its tool’s policy says.',
        DEFAULT_RETRY_ATTEMPTS,
      ),
    ),
    initialDelayMs: Type.Optional(
      Milliseconds(
        DEFAULT_RETRY_INITIAL_DELAY_MS,
        1,
        60_000,
        'The wait before the first retry; each later one about doubles, with jitter.',
      ),
    ),
    maxDelayMs: Type.Optional(Milliseconds(DEFAULT_RETRY_MAX_DELAY_MS, 1, 60_000, 'The longest wait before a retry.')),
  },
  {
    additionalProperties: false,
    title: 'UpstreamRetry',
    description:
      'Retries of transient faults (unreachable, connection lost, HTTP 5xx, timed out) within the call’s `timeoutMs`, with exponential backoff and jitter. A call that may have reached the upstream is sent again only when it is safe to repeat (read-only tool, idempotency key, or policy `retry`).',
  },
);

/** When an upstream's calls stop reaching it. */
export const BreakerSchema = Type.Object(
  {
    failures: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: DEFAULT_BREAKER_FAILURES,
        description: 'Requests failing in a row (transient faults, retries included) that open the breaker.',
      }),
    ),
    halfOpenAfterMs: Type.Optional(
      Milliseconds(
        DEFAULT_BREAKER_HALF_OPEN_AFTER_MS,
        100,
        3_600_000,
        'How long an open breaker refuses calls at once (`transient`, with `retry_after_seconds`) before one is let through to try the upstream: its success closes the breaker, its failure opens it again.',
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'Breaker',
    description: 'The circuit breaker of this upstream: after repeated failures its calls fail at once for a while.',
  },
);

/** Whether a tool's calls are safe to send again after they may have reached the upstream. */
export const RetryPolicySchema = Type.Union(
  [
    Type.Boolean(),
    Type.Object(
      { attempts: Type.Optional(Attempts('Tries of a call in all, the first included, instead of the upstream’s.')) },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      '`true` (or `{ attempts }`): a call is safe to repeat, so it is retried after any transient fault; `false`: never sent again once it may have reached the upstream. Default: safe when the tool is read-only or the call carries an idempotency key.',
  },
);

export type UpstreamRetry = Static<typeof UpstreamRetrySchema>;
export type Breaker = Static<typeof BreakerSchema>;
export type RetryPolicy = Static<typeof RetryPolicySchema>;
