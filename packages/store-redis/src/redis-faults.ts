/**
 * What a failure of a Redis command means for the store: which ones are an
 * outage of Redis (turned into core's `StoreUnavailableError`), and the
 * deadline every command runs under. Pure: no connection, no logging.
 */
import type { StoreUnavailableReason } from '@ext/core';
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';

/** A command outlived `commandTimeoutMs`. Never leaves the package: it becomes a `StoreUnavailableError`. */
export class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Settles like `work`, or rejects with `DeadlineExceeded` after `ms`. The
 * command itself is not cancelled (Redis may still run it: a timed-out
 * write has an unknown outcome); its late result is dropped.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new DeadlineExceeded(ms));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** Error replies of a server that is up but cannot serve now (loading its data, a script running, a failover). */
const BUSY_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

function replyReason(error: ErrorReply): StoreUnavailableReason | undefined {
  if (BUSY_REPLY.test(error.message)) return 'busy';
  if (error.message.startsWith('OOM')) return 'full';
  if (error.message.startsWith('READONLY')) return 'read_only';
  return undefined;
}

/** The outage a failure stands for, or `undefined` when it is not one (a bug, a bad value). */
export function unavailableReason(error: unknown): StoreUnavailableReason | undefined {
  if (error instanceof ErrorReply) return replyReason(error);
  if (
    error instanceof DeadlineExceeded ||
    error instanceof TimeoutError ||
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketTimeoutError
  ) {
    return 'timeout';
  }
  if (
    error instanceof ClientOfflineError ||
    error instanceof SocketClosedUnexpectedlyError ||
    error instanceof ReconnectStrategyError ||
    error instanceof DisconnectsClientError ||
    error instanceof ClientClosedError
  ) {
    return 'unreachable';
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code) ? 'unreachable' : undefined;
}

/**
 * Whether a failure means Redis as a whole does not serve (so later calls
 * fail fast until a PING gets through), as opposed to one refused write
 * (`OOM`, `READONLY`): reads and PING still work then.
 */
export function isOutage(reason: StoreUnavailableReason): boolean {
  return reason === 'unreachable' || reason === 'timeout' || reason === 'busy';
}
