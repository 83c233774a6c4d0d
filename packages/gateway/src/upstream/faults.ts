/**
 * What a failed upstream request was, told apart without I/O: an upstream
 * that cannot be reached or whose connection dropped, one that did not
 * answer in time, a JSON-RPC error it answered with, or a refusal at
 * connect time. Each becomes the `ExtensionError` callers see.
 */
import { ExtensionError } from '@ext/core';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { FaultStage } from './retry-decision.js';

/** The upstream cannot be reached, its process exited, or its connection dropped (transient). */
export const UPSTREAM_UNAVAILABLE = 'UPSTREAM_UNAVAILABLE';
/** The upstream did not answer within its `timeoutMs` (transient). */
export const UPSTREAM_TIMEOUT = 'UPSTREAM_TIMEOUT';
/** The upstream answered a JSON-RPC error -32602, invalid params (invalid_input). */
export const UPSTREAM_INVALID_PARAMS = 'UPSTREAM_INVALID_PARAMS';
/** The upstream answered another JSON-RPC error, or an answer the gateway cannot use (permanent). */
export const UPSTREAM_ERROR = 'UPSTREAM_ERROR';
/** The upstream refused the gateway's credentials (HTTP 401 or 403; permanent until the config changes). */
export const UPSTREAM_REJECTED = 'UPSTREAM_REJECTED';
/** The upstream does not speak the protocol revision the config pins (permanent). */
export const UPSTREAM_INCOMPATIBLE = 'UPSTREAM_INCOMPATIBLE';

/** Seconds a caller is told to wait after a transient fault. */
export const RETRY_AFTER_SECONDS = 5;

/** How far each fault a request met got (kept beside the error, not in what callers see). */
const stages = new WeakMap<ExtensionError, FaultStage>();

/** `error`, remembered as the fault of a request that got as far as `stage`. */
export function atStage(error: ExtensionError, stage: FaultStage): ExtensionError {
  stages.set(error, stage);
  return error;
}

/** How far the request whose fault `error` is got; `undefined` when it is no fault of an upstream request. */
export function stageOf(error: unknown): FaultStage | undefined {
  return ExtensionError.isInstance(error) ? stages.get(error) : undefined;
}

/**
 * The upstream's breaker is open: it failed too often in a row, and calls
 * are refused without reaching it until `retryAfterSeconds` have passed
 * (then one is let through to try it).
 */
export function circuitOpen(
  upstream: string,
  retryAfterSeconds: number,
  last: ExtensionError | undefined,
): ExtensionError {
  return new ExtensionError(
    'transient',
    UPSTREAM_UNAVAILABLE,
    `Upstream "${upstream}" is unavailable: it failed too often in a row; calls are refused for ${retryAfterSeconds} s, then one is let through to try it again`,
    {
      retryAfterSeconds,
      details: {
        upstream,
        operation: 'tools/call',
        breaker: 'open',
        ...(last === undefined ? {} : { last_error: last.message }),
      },
    },
  );
}

/** Which request failed, for the message. */
export interface FaultContext {
  /** The upstream's name. */
  readonly upstream: string;
  /** What was asked: `connect`, `tools/list`, `tools/call`. */
  readonly operation: string;
  readonly timeoutMs: number;
  /** A child process (it is started, not reached). */
  readonly stdio?: boolean | undefined;
}

/** A classified failure. */
export interface Fault {
  readonly error: ExtensionError;
  /** The connection is gone: drop it and connect again. */
  readonly dropped: boolean;
  /** The request may have reached the upstream (repeating it might run it twice). */
  readonly delivered: boolean;
}

/** Node's codes for a connection that was never made: nothing was sent. */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
  'EACCES',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Node's codes for a connection that broke while in use. */
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The error and its causes, outermost first (bounded, in case of a cycle). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 8;) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function nodeCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The innermost message worth showing: the system error's, when there is one. */
function describe(error: unknown): string {
  const chain = causes(error);
  const system = chain.find((e) => {
    const code = nodeCode(e);
    return code !== undefined && (NEVER_CONNECTED.has(code) || BROKEN.has(code));
  });
  const chosen = system ?? error;
  return chosen instanceof Error ? chosen.message : String(chosen);
}

/** `'never'` when no connection was made, `'broken'` when it broke in use, `undefined` when no network fault is in the chain. */
function networkFault(error: unknown): 'never' | 'broken' | undefined {
  for (const e of causes(error)) {
    const code = nodeCode(e);
    if (code !== undefined && NEVER_CONNECTED.has(code)) return 'never';
    if (code !== undefined && BROKEN.has(code)) return 'broken';
  }
  return error instanceof TypeError && error.message === 'fetch failed' ? 'broken' : undefined;
}

function httpStatus(error: unknown): number | undefined {
  const status = (error as { data?: { status?: unknown } } | null)?.data?.status;
  return typeof status === 'number' ? status : undefined;
}

function transient(code: string, message: string, context: FaultContext, cause: unknown): ExtensionError {
  return new ExtensionError('transient', code, message, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    details: { upstream: context.upstream, operation: context.operation },
    cause,
  });
}

/** The upstream cannot serve: `delivered` says whether the request may have reached it. */
export function unavailable(context: FaultContext, reason: string, cause?: unknown, delivered = false): Fault {
  const error = transient(
    UPSTREAM_UNAVAILABLE,
    `Upstream "${context.upstream}" is unavailable: ${reason}`,
    context,
    cause,
  );
  return { error, dropped: true, delivered };
}

/** The message of a JSON-RPC error, without the `MCP error -32602: ` some SDKs put in front. */
function upstreamMessage(error: ProtocolError): string {
  return error.message.replace(/^MCP error -?\d+: /, '');
}

function fromJsonRpc(error: ProtocolError, context: FaultContext): Fault {
  const invalid = error.code === (ProtocolErrorCode.InvalidParams as number);
  const details: Record<string, unknown> = {
    upstream: context.upstream,
    operation: context.operation,
    upstream_code: error.code,
  };
  if (error.data !== undefined) details.upstream_data = error.data;
  const message = `Upstream "${context.upstream}": ${upstreamMessage(error)}`;
  const extension = invalid
    ? new ExtensionError('invalid_input', UPSTREAM_INVALID_PARAMS, message, { details, cause: error })
    : new ExtensionError('permanent', UPSTREAM_ERROR, message, { details, cause: error });
  return { error: extension, dropped: false, delivered: true };
}

function permanent(code: string, message: string, context: FaultContext, cause: unknown, status?: number): Fault {
  const details: Record<string, unknown> = { upstream: context.upstream, operation: context.operation };
  if (status !== undefined) details.http_status = status;
  return { error: new ExtensionError('permanent', code, message, { details, cause }), dropped: false, delivered: true };
}

/** An HTTP answer that is not MCP: a lost session, a server down behind a proxy, a refusal. */
function fromHttpStatus(status: number, error: unknown, context: FaultContext): Fault {
  const name = `Upstream "${context.upstream}"`;
  // 404: the session the gateway held is gone (the server restarted); nothing ran.
  if (status === 404) return unavailable(context, 'its session ended (HTTP 404)', error);
  if (status === 401 || status === 403)
    return permanent(
      UPSTREAM_REJECTED,
      `${name} refused the gateway's credentials (HTTP ${status})`,
      context,
      error,
      status,
    );
  if (status >= 500 || status === 429) {
    const fault = unavailable(context, `it answered HTTP ${status}`, error);
    return { ...fault, dropped: false };
  }
  // A probe for the pinned era the server does not understand (a 2025-only server answering 400, say).
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed)
    return permanent(UPSTREAM_INCOMPATIBLE, `${name} cannot be spoken to: ${error.message}`, context, error, status);
  return permanent(UPSTREAM_ERROR, `${name} answered HTTP ${status}: ${describe(error)}`, context, error, status);
}

function fromSdk(error: SdkError, context: FaultContext): Fault {
  const name = `Upstream "${context.upstream}"`;
  switch (error.code) {
    case SdkErrorCode.RequestTimeout:
      return {
        error: transient(
          UPSTREAM_TIMEOUT,
          `${name} did not answer ${context.operation} within ${context.timeoutMs} ms`,
          context,
          error,
        ),
        dropped: false,
        delivered: true,
      };
    case SdkErrorCode.ConnectionClosed:
      return unavailable(context, 'its connection closed while the request was running', error, true);
    case SdkErrorCode.NotConnected:
    case SdkErrorCode.SendFailed:
      return unavailable(context, 'it is not connected', error);
    case SdkErrorCode.EraNegotiationFailed:
      return permanent(UPSTREAM_INCOMPATIBLE, `${name} cannot be spoken to: ${error.message}`, context, error);
    case SdkErrorCode.ClientHttpAuthentication:
    case SdkErrorCode.ClientHttpForbidden:
      return permanent(
        UPSTREAM_REJECTED,
        `${name} refused the gateway's credentials`,
        context,
        error,
        httpStatus(error),
      );
    default:
      return permanent(UPSTREAM_ERROR, `${name} failed ${context.operation}: ${error.message}`, context, error);
  }
}

/** Classifies why a request to an upstream (or connecting to it) failed. */
export function classifyFault(error: unknown, context: FaultContext): Fault {
  if (ExtensionError.isInstance(error)) return { error, dropped: false, delivered: false };
  const network = networkFault(error);
  if (network !== undefined) {
    const never = context.stdio === true ? 'it cannot be started' : 'it cannot be reached';
    const reason = `${network === 'never' ? never : 'its connection broke'} (${describe(error)})`;
    return unavailable(context, reason, error, network === 'broken');
  }
  if (error instanceof ProtocolError) return fromJsonRpc(error, context);
  if (error instanceof UnauthorizedError) return fromHttpStatus(401, error, context);
  const status = httpStatus(error);
  if (status !== undefined && error instanceof SdkError && status >= 400) return fromHttpStatus(status, error, context);
  if (error instanceof SdkError) return fromSdk(error, context);
  // The protocol layer rejects with a plain `Error('Not connected')` once its transport is gone.
  if (error instanceof Error && error.message === 'Not connected')
    return unavailable(context, 'it is not connected', error);
  const message = error instanceof Error ? error.message : String(error);
  return permanent(
    UPSTREAM_ERROR,
    `Upstream "${context.upstream}" failed ${context.operation}: ${message}`,
    context,
    error,
  );
}
