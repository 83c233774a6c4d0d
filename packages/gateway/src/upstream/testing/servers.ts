/**
 * Test support: real upstreams for the upstream tests. An SDK v2 server over
 * Streamable HTTP on both eras (sessions on 2025-11-25, the SDK's
 * per-request handler on 2026-07-28) whose tools can be added or changed
 * while it runs;
 * an SDK v1 server over HTTP; where the npm servers' bin files are; the
 * child processes of this process; a logger that records.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { silentLogger, type Logger } from '@ext/core';
import { listen } from '@ext/core/sdk-v2/server';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  type RegisteredTool,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { Server as V1Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport as V1Transport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const require = createRequire(import.meta.url);

/** The file an npm package's only bin runs (resolved from its package.json, not via npx). */
export function binOf(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (bin === undefined) throw new Error(`${packageName} has no bin`);
  return join(dirname(manifestPath), bin);
}

/** The command lines of this process's children that mention `marker`. */
export function childProcesses(marker: string): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // `ps` exits 1 when there is no child at all.
  }
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(marker));
}

/** The pid of this process's only child whose command line mentions `marker`. */
export function childPid(marker: string): number {
  const lines = childProcesses(marker);
  if (lines.length !== 1) throw new Error(`expected one child running ${marker}, found ${lines.length}`);
  return Number.parseInt(lines[0]!.split(' ')[0]!, 10);
}

export interface LogEntry {
  readonly level: 'warn' | 'error' | 'debug';
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
}

/** A logger keeping what it is told (`entries`), warnings and errors apart from debug lines. */
export function recordingLogger(): Logger & { readonly entries: LogEntry[]; warnings(): LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    warnings: () => entries.filter((entry) => entry.level !== 'debug'),
    warn: (message, details) => entries.push({ level: 'warn', message, details }),
    error: (message, details) => entries.push({ level: 'error', message, details }),
    debug: (message, details) => entries.push({ level: 'debug', message, details }),
  };
}

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export interface V2Upstream {
  readonly url: string;
  /** Labels of `slow` calls whose signal aborted on the server. */
  readonly aborted: string[];
  /** The `authorization` header of every request received (`null` where there was none). */
  readonly authorizations: (string | null)[];
  /** Resolves once a `slow` call labelled `label` is running on the server. */
  whenStarted(label: string): Promise<void>;
  /** Resolves once a `slow` call labelled `label` has seen its signal abort. */
  whenAborted(label: string): Promise<void>;
  /** Resolves once a 2025-era client holds its stream for server messages open. */
  readonly legacyStreamOpen: Promise<void>;
  /** Resolves once the server has opened `count` `subscriptions/listen` streams (2026-07-28) in all. */
  whenListens(count: number): Promise<void>;
  /** Ends every 2025-era session, as a restart would: their next request is answered 404. */
  forgetSessions(): Promise<void>;
  /** Cuts every open `subscriptions/listen` stream, as a proxy dropping long requests would. */
  dropListenStreams(): void;
  /** Registers a tool `name` (echoing `added <name>`) and tells every client the list changed. */
  addTool(name: string): void;
  /** Changes the description of the tool `name` (on every server, now and later) and tells every client the list changed. */
  changeTool(name: string, change: { readonly description: string }): void;
  /** The `text` of every `echo` call the server ran, in order. */
  readonly echoed: readonly string[];
  /** Lets every `slow` call return (cleanup). */
  releaseAll(): void;
  close(): Promise<void>;
}

interface V2State {
  readonly added: string[];
  /** Descriptions `changeTool` gave, by tool name. */
  readonly descriptions: Map<string, string>;
  readonly echoed: string[];
  readonly aborted: string[];
  readonly abortWaiters: Map<string, () => void>;
  readonly started: Map<string, { promise: Promise<void>; resolve: () => void }>;
  /** What `slow` calls now running wait for; replaced once released, so later calls wait again. */
  release: { promise: Promise<void>; resolve: () => void };
}

/** The tools registered on each server built, by name: what `changeTool` updates on a live session. */
const registeredTools = new WeakMap<McpServer, Map<string, RegisteredTool>>();

function remember(server: McpServer, name: string, tool: RegisteredTool): void {
  const tools = registeredTools.get(server) ?? new Map<string, RegisteredTool>();
  tools.set(name, tool);
  registeredTools.set(server, tools);
}

function registerAdded(server: McpServer, name: string): void {
  const tool = server.registerTool(name, { description: `added later: ${name}` }, () => ({
    content: [{ type: 'text', text: `added ${name}` }],
  }));
  remember(server, name, tool);
}

/** `slow`: waits until the test releases it or its signal aborts (recording the abort). */
function startedGate(state: V2State, label: string): { promise: Promise<void>; resolve: () => void } {
  let gate = state.started.get(label);
  if (gate === undefined) {
    gate = deferred();
    state.started.set(label, gate);
  }
  return gate;
}

async function runSlow(state: V2State, label: string, signal: AbortSignal): Promise<string> {
  startedGate(state, label).resolve();
  const aborted = new Promise<void>((resolve) => {
    const onAbort = () => {
      state.aborted.push(label);
      state.abortWaiters.get(label)?.();
      resolve();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([aborted, state.release.promise]);
  return `slow ${label} done`;
}

function buildV2(state: V2State): McpServer {
  const server = new McpServer({ name: 'v2-upstream', version: '1.0.0' });
  const echo = server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Says the text back.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ echoed: z.string() }),
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/kind': 'echo' },
    },
    ({ text }) => {
      state.echoed.push(text);
      return { content: [{ type: 'text', text }], structuredContent: { echoed: text } };
    },
  );
  const fail = server.registerTool('fail', { description: 'Always fails as a tool.' }, () => ({
    content: [{ type: 'text', text: 'the tool failed' }],
    isError: true,
  }));
  const slow = server.registerTool(
    'slow',
    { inputSchema: z.object({ label: z.string() }) },
    async ({ label }, ctx) => ({
      content: [{ type: 'text', text: await runSlow(state, label, ctx.mcpReq.signal) }],
    }),
  );
  remember(server, 'echo', echo);
  remember(server, 'fail', fail);
  remember(server, 'slow', slow);
  for (const name of state.added) registerAdded(server, name);
  // Not connected yet: updating tells no one.
  for (const [name, description] of state.descriptions) registeredTools.get(server)?.get(name)?.update({ description });
  return server;
}

async function bodyOf(request: Request): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  const text = await request.text();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** The `subscriptions/listen` responses a server sent, each passed through a stream the test can cut. */
class ListenStreams {
  #count = 0;
  readonly #open = new Set<AbortController>();
  readonly #waiters: { count: number; resolve: () => void }[] = [];

  track(response: Response): Response {
    this.#count += 1;
    for (const waiter of this.#waiters.filter((w) => w.count <= this.#count)) waiter.resolve();
    if (response.body === null) return response;
    const cut = new AbortController();
    this.#open.add(cut);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    response.body.pipeTo(writable, { signal: cut.signal }).catch(() => undefined);
    return new Response(readable, { status: response.status, headers: response.headers });
  }

  whenCount(count: number): Promise<void> {
    if (this.#count >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  dropAll(): void {
    for (const cut of this.#open) cut.abort();
    this.#open.clear();
  }
}

/** The `authorization` header the v2 server answers 401. */
export const REFUSED_CREDENTIALS = 'Bearer refused';

/** A v2 McpServer on both eras, at a free port. */
export async function serveV2(): Promise<V2Upstream> {
  const state: V2State = {
    added: [],
    descriptions: new Map(),
    echoed: [],
    aborted: [],
    abortWaiters: new Map(),
    started: new Map(),
    release: deferred(),
  };
  const authorizations: (string | null)[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const legacyServers = new Set<McpServer>();
  const streamOpen = deferred();
  const modern = createMcpHandler(() => buildV2(state), { legacy: 'reject' });
  const listens = new ListenStreams();
  const serveModern = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const response = await modern.fetch(request, { parsedBody });
    const method = (parsedBody as { method?: unknown } | undefined)?.method;
    return method === 'subscriptions/listen' ? listens.track(response) : response;
  };

  const legacy = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const transport = sessions.get(id);
      if (transport === undefined) return new Response('Unknown session', { status: 404 });
      const response = await transport.handleRequest(request, { parsedBody });
      if (request.method === 'GET') streamOpen.resolve();
      return response;
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    const server = buildV2(state);
    legacyServers.add(server);
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  };

  const listening = await listen(
    {
      async fetch(request: Request): Promise<Response> {
        authorizations.push(request.headers.get('authorization'));
        if (request.headers.get('authorization') === REFUSED_CREDENTIALS) return new Response('no', { status: 401 });
        const parsedBody = await bodyOf(request);
        return (await isLegacyRequest(request, parsedBody))
          ? legacy(request, parsedBody)
          : serveModern(request, parsedBody);
      },
      async close() {
        state.release.resolve();
        await Promise.all([...sessions.values()].map((transport) => transport.close()));
        await modern.close();
      },
    },
    { port: 0, logger: silentLogger },
  );
  return {
    url: String(listening.url),
    aborted: state.aborted,
    authorizations,
    whenStarted: (label) => startedGate(state, label).promise,
    whenAborted: (label) =>
      state.aborted.includes(label)
        ? Promise.resolve()
        : new Promise((resolve) => state.abortWaiters.set(label, resolve)),
    legacyStreamOpen: streamOpen.promise,
    whenListens: (count) => listens.whenCount(count),
    async forgetSessions() {
      const ended = [...sessions.values()];
      sessions.clear();
      await Promise.all(ended.map((transport) => transport.close()));
    },
    dropListenStreams: () => {
      listens.dropAll();
    },
    addTool(name) {
      state.added.push(name);
      for (const server of legacyServers) registerAdded(server, name);
      modern.notify.toolsChanged();
    },
    changeTool(name, { description }) {
      state.descriptions.set(name, description);
      // `update` tells the session's client the list changed.
      for (const server of legacyServers) registeredTools.get(server)?.get(name)?.update({ description });
      modern.notify.toolsChanged();
    },
    echoed: state.echoed,
    releaseAll() {
      state.release.resolve();
      state.release = deferred();
    },
    close: () => listening.close(),
  };
}

/* eslint-disable @typescript-eslint/no-deprecated -- the low-level v1 Server answers JSON-RPC errors that McpServer would turn into tool errors */
function buildV1(): V1Server {
  const server = new V1Server({ name: 'v1-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
      { name: 'crash', description: 'Answers a JSON-RPC internal error.', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name === 'crash') throw new McpError(ErrorCode.InternalError, 'database is down');
    if (request.params.name !== 'echo') throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    return { content: [{ type: 'text', text: String(request.params.arguments?.text) }] };
  });
  return server;
}
/* eslint-enable @typescript-eslint/no-deprecated */

/** A low-level SDK v1 server (2025 era only) over Streamable HTTP, at a free port. */
export async function serveV1(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sessions = new Map<string, V1Transport>();
  const listening = await listen(
    {
      async fetch(request: Request): Promise<Response> {
        const parsedBody = await bodyOf(request);
        const id = request.headers.get('mcp-session-id');
        const known = id === null ? undefined : sessions.get(id);
        if (known !== undefined) return known.handleRequest(request, { parsedBody });
        if (id !== null) return new Response('Unknown session', { status: 404 });
        const transport: V1Transport = new V1Transport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, transport);
          },
        });
        await buildV1().connect(transport);
        return transport.handleRequest(request, { parsedBody });
      },
      async close() {
        await Promise.all([...sessions.values()].map((transport) => transport.close()));
      },
    },
    { port: 0, logger: silentLogger },
  );
  return { url: String(listening.url), close: () => listening.close() };
}
