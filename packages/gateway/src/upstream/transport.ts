/**
 * How the gateway speaks to one upstream: the SDK v2 client's options (the
 * protocol era, tool-list changes) and its transport, a child process over
 * stdio or Streamable HTTP, from the upstream's config entry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@ext/core';
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type Implementation,
  type jsonSchemaValidator,
  type JsonSchemaValidator,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { keepAliveFetch, type BrokenResponseListener } from './node-fetch.js';
import type { HttpUpstream, StdioUpstream, Upstream } from '../config/schema.js';

/** How long an upstream may take to answer, when its config does not say. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The last characters of a stdio upstream's stderr kept, to tell why it exited. */
const STDERR_TAIL_CHARS = 2000;

export function isStdio(upstream: Upstream): upstream is StdioUpstream {
  return 'command' in upstream;
}

export function timeoutOf(upstream: Upstream): number {
  return upstream.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/** Where the upstream is, for messages: its URL, or its command line. */
export function describeTarget(upstream: Upstream): string {
  return isStdio(upstream) ? [upstream.command, ...(upstream.args ?? [])].join(' ') : upstream.url;
}

/** The era an HTTP upstream is spoken to in: `auto` probes, `2026-07-28` pins, `2025-11-25` is the 2025 handshake. */
export function negotiationMode(protocol: HttpUpstream['protocol']): VersionNegotiationMode {
  if (protocol === undefined || protocol === 'auto') return 'auto';
  return protocol === '2025-11-25' ? 'legacy' : { pin: protocol };
}

/**
 * The gateway passes results on as they are: the client at the other end
 * checks them against the tool's output schema, so the gateway does not
 * refuse one first.
 */
const passThroughValidator: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** A client for `upstream`; `onToolsChanged` runs when it says its tool list changed. */
export function createUpstreamClient(
  upstream: Upstream,
  clientInfo: Implementation,
  onToolsChanged: () => void,
): Client {
  const options: ClientOptions = {
    jsonSchemaValidator: passThroughValidator,
    // The gateway lists again itself, when it is next asked.
    listChanged: {
      tools: {
        autoRefresh: false,
        debounceMs: 0,
        onChanged: () => {
          onToolsChanged();
        },
      },
    },
  };
  // stdio servers speak the 2025 handshake (no era probe, which would start a second process per connect).
  if (!isStdio(upstream)) options.versionNegotiation = { mode: negotiationMode(upstream.protocol) };
  return new Client({ ...clientInfo }, options);
}

/** A stdio upstream's transport, and the tail of what it wrote to stderr. */
export interface UpstreamTransport {
  readonly transport: Transport;
  /** The end of the child's stderr (empty over HTTP). */
  stderrTail(): string;
  /** Ends the session politely where the transport has one (HTTP `DELETE`). */
  terminate(): Promise<void>;
  /** Lets go of what the transport holds once its client is closed (HTTP: the keep-alive sockets). */
  dispose(): void;
}

function stdioTransport(name: string, upstream: StdioUpstream, logger: Logger): UpstreamTransport {
  const transport = new StdioClientTransport({
    command: upstream.command,
    args: [...(upstream.args ?? [])],
    // A minimal environment (PATH, HOME and the SDK's few others), not the gateway's own, plus the config's.
    env: { ...getDefaultEnvironment(), ...upstream.env },
    ...(upstream.cwd === undefined ? {} : { cwd: upstream.cwd }),
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
    for (const line of text.split('\n')) if (line.trim() !== '') logger.debug?.(`upstream ${name}: ${line}`);
  });
  return { transport, stderrTail: () => tail.trim(), terminate: () => Promise.resolve(), dispose: () => undefined };
}

/** Who hears of a broken response to the HTTP requests made in the current async context. */
const brokenResponses = new AsyncLocalStorage<BrokenResponseListener>();

/**
 * Runs `request`; a response to an HTTP request it makes that breaks off
 * before its end (the upstream died mid-call) is reported to `onBroken`.
 * The SDK's transport only logs such a stream's error and leaves the
 * request waiting for its timeout; the caller can fail it at once.
 */
export function watchingResponses<T>(onBroken: BrokenResponseListener, request: () => T): T {
  return brokenResponses.run(onBroken, request);
}

function httpTransport(upstream: HttpUpstream): UpstreamTransport {
  const sockets = keepAliveFetch({ onBrokenResponse: () => brokenResponses.getStore() });
  const transport = new StreamableHTTPClientTransport(new URL(upstream.url), {
    requestInit: { headers: { ...upstream.headers } },
    fetch: sockets.fetch,
  });
  return {
    transport,
    stderrTail: () => '',
    terminate: () => transport.terminateSession().catch(() => undefined),
    dispose: () => {
      sockets.close();
    },
  };
}

/** A fresh transport for `upstream` (a new child process for stdio, once started). */
export function createUpstreamTransport(name: string, upstream: Upstream, logger: Logger): UpstreamTransport {
  return isStdio(upstream) ? stdioTransport(name, upstream, logger) : httpTransport(upstream);
}
