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
 * work itself is not cancelled; its late result is dropped. For `close()`,
 * where waiting out the bound is the point; commands use {@link ReplyWatch}.
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
        reject(asError(error));
      },
    );
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Tells a Redis that does not answer from a process too busy to read its
 * answers (REDIS-12). A plain timer started with the command counts the
 * process's own event-loop backlog too: under a burst, the replies sit
 * unread in the socket while the timer fires first, and a healthy Redis
 * is called down. Here a command times out only once Redis has been
 * silent for `ms`: nothing heard on the connection since the command was
 * written, with the replies already received read before deciding.
 */
export class ReplyWatch {
  /** When Redis last answered a command of this connection (`performance.now()`). */
  #lastHeard = Number.NEGATIVE_INFINITY;

  /** Settles like `work` (commands issued on the watched connection just now), or rejects with `DeadlineExceeded`. */
  bound<T>(work: Promise<T>, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let writtenAt = 0;
      let timer: NodeJS.Timeout | undefined;
      // Replies already received are read in the poll phase, which runs before this immediate.
      const decide = () => {
        setImmediate(() => {
          if (settled) return;
          const quiet = performance.now() - Math.max(writtenAt, this.#lastHeard);
          if (quiet < ms) {
            timer = setTimeout(decide, ms - quiet);
            return;
          }
          settled = true;
          reject(new DeadlineExceeded(ms));
        });
      };
      // node-redis writes what was issued in an immediate scheduled before this one: the clock starts once it is on the socket.
      setImmediate(() => {
        if (settled) return;
        writtenAt = performance.now();
        timer = setTimeout(decide, ms);
      });
      const finish = (outcome: () => void, answered: boolean) => {
        if (answered) this.#lastHeard = performance.now();
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        outcome();
      };
      work.then(
        (value) => {
          finish(() => {
            resolve(value);
          }, true);
        },
        (error: unknown) => {
          finish(() => {
            reject(asError(error));
          }, error instanceof ErrorReply);
        },
      );
    });
  }
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
