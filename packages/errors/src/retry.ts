/** Reading a structured error off a result or an error, and the client's retry policy that acts on it. */
import { ExtensionError, type ConfigurationError, type StructuredError } from '@ext/core';
import type { Resolved } from '@ext/core/kit';
import { invalidOption } from './option-checks.js';
import { readDraftFailure, readProperty } from './read.js';
import { ERRORS_IDS, isStructuredError } from './schema.js';
import type { ToolFailure } from './tool-failure.js';

/** A structured error, and the SEP-3313 object it was read from when it came from there alone. */
interface ReadFailure {
  readonly structured: StructuredError;
  readonly draft?: ToolFailure | undefined;
}

/**
 * The structured error carried by a failed tool result (`_meta[id]` of a
 * result with `isError: true`, or else the SEP-3313 `toolFailure` key read
 * back into our model, ERR-34), by a JSON-RPC error (`data` of core's
 * `WireError` or of any error object with a `data` field), or by a local
 * `ExtensionError`. `undefined` when there is none or it does not validate
 * against the schema. Never throws.
 */
export function getStructuredError(resultOrError: unknown): StructuredError | undefined {
  return readFailure(resultOrError, Date.now())?.structured;
}

function readFailure(resultOrError: unknown, nowMs: number): ReadFailure | undefined {
  const own = ownStructuredError(resultOrError);
  if (own !== undefined) return { structured: own };
  // Ours wins when both keys are present (ERR-35); the draft's is read only without it.
  const draft = readDraftFailure(resultOrError, nowMs);
  if (draft !== undefined) return { structured: draft.structured, draft: draft.failure };
  const data = readProperty(resultOrError, 'data');
  return isStructuredError(data) ? { structured: data } : undefined;
}

function ownStructuredError(resultOrError: unknown): StructuredError | undefined {
  if (typeof resultOrError !== 'object' || resultOrError === null) return undefined;
  if (ExtensionError.isInstance(resultOrError)) {
    const toStructured = readProperty(resultOrError, 'toStructured');
    if (typeof toStructured === 'function') {
      try {
        const structured: unknown = toStructured.call(resultOrError);
        if (isStructuredError(structured)) return structured;
      } catch {
        // A broken copy of the class: treat the error as carrying nothing structured.
        return undefined;
      }
    }
  }
  if (readProperty(resultOrError, 'isError') === true) {
    const meta = readProperty(resultOrError, '_meta');
    // Newest identifier first, should a later generation be served alongside.
    for (const id of [...ERRORS_IDS].reverse()) {
      const candidate = readProperty(meta, id);
      if (isStructuredError(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Whether retrying as-is may succeed: the structured error is `transient` or
 * `rate_limited`; for a failure read from the SEP-3313 key alone, its
 * `retryable` must also be `true` (ERR-35). The tool's `idempotentHint`,
 * which the draft also requires for an automatic retry, is the caller's to
 * know (`RetryPolicy.idempotent`).
 */
export function isRetryable(resultOrError: unknown): boolean {
  const read = readFailure(resultOrError, Date.now());
  if (read === undefined) return false;
  const { category } = read.structured;
  return (
    (category === 'transient' || category === 'rate_limited') &&
    (read.draft === undefined || read.draft.retryable === true)
  );
}

/** Whether the draft lets a client retry this failure automatically: `retryable` and an idempotent tool (ERR-35). */
function draftAllowsRetry(draft: ToolFailure | undefined, policy: RetryPolicy): boolean {
  return draft === undefined || (draft.retryable === true && policy.idempotent === true);
}

/** One scheduled retry, for logging. */
export interface RetryEvent {
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: StructuredError;
}

export interface RetryPolicy {
  /** Attempts in total, the first included. Default 3. */
  readonly maxAttempts?: number | undefined;
  /** Backoff before the second attempt; doubles each time. Default 500. */
  readonly baseDelayMs?: number | undefined;
  /**
   * Longest wait between attempts. Default 30 000. A `retry_after_seconds`
   * longer than this ends the retries instead of being cut short.
   */
  readonly maxDelayMs?: number | undefined;
  /**
   * Called on `auth_required` (with the failing attempt's number); resolve
   * `true` once credentials are refreshed to retry once.
   */
  readonly onAuthRequired?: ((error: StructuredError, attempt: number) => boolean | Promise<boolean>) | undefined;
  /** Called before each wait. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Aborts waiting and further attempts; the abort reason is thrown. */
  readonly signal?: AbortSignal | undefined;
  /** Waits `ms` (tests pass a fake). Default: a timer that the signal cancels. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** A number in [0, 1) for jitter (tests pass a fixed one). Default `Math.random`. */
  readonly random?: (() => number) | undefined;
  /**
   * Whether the called tool declared `idempotentHint: true`. Consulted only
   * for failures that carry the SEP-3313 key and not ours: the draft
   * forbids retrying a non-idempotent tool automatically, and MCP's default
   * for the hint is `false` (ERR-35). Default `false`.
   */
  readonly idempotent?: boolean | undefined;
}

/** A policy with every default filled in. */
export type ResolvedRetryPolicy = Resolved<Pick<RetryPolicy, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs'>>;

export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

function invalid(option: string, expectation: string): ConfigurationError {
  return invalidOption(`retry policy "${option}" ${expectation}`);
}

/** Validates a policy and fills in defaults; throws a `ConfigurationError` naming the bad option. */
export function resolveRetryPolicy(policy: RetryPolicy = {}): ResolvedRetryPolicy {
  const {
    maxAttempts = DEFAULT_RETRY_POLICY.maxAttempts,
    baseDelayMs = DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs = DEFAULT_RETRY_POLICY.maxDelayMs,
  } = policy;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw invalid('maxAttempts', 'must be a positive integer');
  if (!Number.isFinite(baseDelayMs) || baseDelayMs < 0) throw invalid('baseDelayMs', 'must be a finite number >= 0');
  if (!Number.isFinite(maxDelayMs) || maxDelayMs < 0) throw invalid('maxDelayMs', 'must be a finite number >= 0');
  for (const name of ['onAuthRequired', 'onRetry', 'sleep', 'random'] as const) {
    if (policy[name] !== undefined && typeof policy[name] !== 'function') throw invalid(name, 'must be a function');
  }
  if (policy.idempotent !== undefined && typeof policy.idempotent !== 'boolean')
    throw invalid('idempotent', 'must be a boolean');
  return { maxAttempts, baseDelayMs, maxDelayMs };
}

/**
 * How long to wait after failed attempt `attempt` (1-based) before the next
 * one, or `undefined` when the error must not be retried after a wait
 * (not `transient`/`rate_limited`, or the server asks for a longer wait than
 * `maxDelayMs`). Exponential backoff with "equal jitter" (half fixed, half
 * random), never shorter than `retry_after_seconds`, never longer than
 * `maxDelayMs`. `random` is in [0, 1).
 */
export function retryDelayMs(
  attempt: number,
  error: StructuredError,
  policy: ResolvedRetryPolicy,
  random: number,
): number | undefined {
  if (error.category !== 'transient' && error.category !== 'rate_limited') return undefined;
  const floor = (error.retry_after_seconds ?? 0) * 1000;
  if (floor > policy.maxDelayMs) return undefined;
  const exponent = Math.min(Math.max(attempt - 1, 0), 52);
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const clamped = Math.min(Math.max(random, 0), 1);
  const jittered = Math.round(backoff / 2 + (backoff / 2) * clamped);
  return Math.min(policy.maxDelayMs, Math.max(floor, jittered));
}

/** The default sleep: a timer that an abort cuts short, then rejects with the abort reason. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
  signal?.throwIfAborted();
}

type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

function settle<R>(outcome: Outcome<R>): R {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}

/**
 * Runs `fn(attempt)` (attempt is 1-based) until it succeeds or the policy
 * says stop. `fn` returns a tool result or throws; a failure is retried
 * only when it carries a structured error: `transient` and `rate_limited`
 * after a backoff that honours `retry_after_seconds`; `auth_required` once,
 * right away, if `onAuthRequired` resolves `true`; `permanent` and
 * `invalid_input` never. When the retries end, the last outcome is
 * returned or thrown as `fn` produced it. Nothing is minted per attempt, so
 * per-call data such as an idempotency key stays the same across attempts
 * when `fn` closes over it.
 */
export async function withRetry<R>(fn: (attempt: number) => R | Promise<R>, policy: RetryPolicy = {}): Promise<R> {
  const resolved = resolveRetryPolicy(policy);
  const sleep = policy.sleep ?? abortableSleep;
  const random = policy.random ?? Math.random;
  const { signal } = policy;
  let authRetried = false;
  for (let attempt = 1; ; attempt += 1) {
    signal?.throwIfAborted();
    let outcome: Outcome<R>;
    try {
      outcome = { ok: true, value: await fn(attempt) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const read = readFailure(outcome.ok ? outcome.value : outcome.error, Date.now());
    if (read === undefined || attempt >= resolved.maxAttempts) return settle(outcome);
    const { structured } = read;
    if (structured.category === 'auth_required') {
      if (authRetried || policy.onAuthRequired === undefined) return settle(outcome);
      authRetried = true;
      if (!(await policy.onAuthRequired(structured, attempt))) return settle(outcome);
      continue;
    }
    if (!draftAllowsRetry(read.draft, policy)) return settle(outcome);
    const delayMs = retryDelayMs(attempt, structured, resolved, random());
    if (delayMs === undefined) return settle(outcome);
    policy.onRetry?.({ attempt, delayMs, error: structured });
    await sleep(delayMs, signal);
    // An injected sleep may ignore the signal; an abort during it still ends the loop.
    signal?.throwIfAborted();
  }
}
