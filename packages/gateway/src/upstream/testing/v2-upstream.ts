/**
 * Test support: `serveV2`, an SDK v2 server over Streamable HTTP on both
 * eras (sessions on 2025-11-25, the SDK's per-request handler on
 * 2026-07-28) whose tools can be added or changed while it runs, and what
 * the test sees of it and does to it.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { bodyOf } from './request-body.js';
import { buildV2, deferred, describeTool, newV2State, registerAdded, startedGate, type V2State } from './v2-server.js';

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

/** The 2025-era side: a session (its transport and its server) per client, kept until closed or forgotten. */
class LegacySessions {
  readonly #state: V2State;
  readonly #transports = new Map<string, WebStandardStreamableHTTPServerTransport>();
  /** Every server built for a session, forgotten or not. */
  readonly servers = new Set<McpServer>();
  readonly streamOpen = deferred();

  constructor(state: V2State) {
    this.#state = state;
  }

  async handle(request: Request, parsedBody: unknown): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const transport = this.#transports.get(id);
      if (transport === undefined) return new Response('Unknown session', { status: 404 });
      const response = await transport.handleRequest(request, { parsedBody });
      if (request.method === 'GET') this.streamOpen.resolve();
      return response;
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        this.#transports.set(sessionId, transport);
      },
    });
    const server = buildV2(this.#state);
    this.servers.add(server);
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  async forget(): Promise<void> {
    const ended = [...this.#transports.values()];
    this.#transports.clear();
    await Promise.all(ended.map((transport) => transport.close()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.#transports.values()].map((transport) => transport.close()));
  }
}

/** The `authorization` header the v2 server answers 401. */
export const REFUSED_CREDENTIALS = 'Bearer refused';

/** What the test sees of a running v2 server and does to it. */
interface V2Parts {
  readonly url: string;
  readonly state: V2State;
  readonly authorizations: (string | null)[];
  readonly legacy: LegacySessions;
  readonly listens: ListenStreams;
  /** Tells every 2026-07-28 client the tool list changed. */
  readonly toolsChanged: () => void;
  readonly close: () => Promise<void>;
}

function v2Upstream({ url, state, authorizations, legacy, listens, toolsChanged, close }: V2Parts): V2Upstream {
  return {
    url,
    aborted: state.aborted,
    authorizations,
    whenStarted: (label) => startedGate(state, label).promise,
    whenAborted: (label) =>
      state.aborted.includes(label)
        ? Promise.resolve()
        : new Promise((resolve) => state.abortWaiters.set(label, resolve)),
    legacyStreamOpen: legacy.streamOpen.promise,
    whenListens: (count) => listens.whenCount(count),
    forgetSessions: () => legacy.forget(),
    dropListenStreams: () => {
      listens.dropAll();
    },
    addTool(name) {
      state.added.push(name);
      for (const server of legacy.servers) registerAdded(server, name);
      toolsChanged();
    },
    changeTool(name, { description }) {
      state.descriptions.set(name, description);
      // `update` tells the session's client the list changed.
      for (const server of legacy.servers) describeTool(server, name, description);
      toolsChanged();
    },
    echoed: state.echoed,
    releaseAll() {
      state.release.resolve();
      state.release = deferred();
    },
    close,
  };
}

/** A v2 McpServer on both eras, at a free port. */
export async function serveV2(): Promise<V2Upstream> {
  const state = newV2State();
  const authorizations: (string | null)[] = [];
  const legacy = new LegacySessions(state);
  const modern = createMcpHandler(() => buildV2(state), { legacy: 'reject' });
  const listens = new ListenStreams();
  const serveModern = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const response = await modern.fetch(request, { parsedBody });
    const method = (parsedBody as { method?: unknown } | undefined)?.method;
    return method === 'subscriptions/listen' ? listens.track(response) : response;
  };
  const listening = await listen(
    {
      async fetch(request: Request): Promise<Response> {
        authorizations.push(request.headers.get('authorization'));
        if (request.headers.get('authorization') === REFUSED_CREDENTIALS) return new Response('no', { status: 401 });
        const parsedBody = await bodyOf(request);
        return (await isLegacyRequest(request, parsedBody))
          ? legacy.handle(request, parsedBody)
          : serveModern(request, parsedBody);
      },
      async close() {
        state.release.resolve();
        await legacy.close();
        await modern.close();
      },
    },
    { port: 0, logger: silentLogger },
  );
  return v2Upstream({
    url: String(listening.url),
    state,
    authorizations,
    legacy,
    listens,
    toolsChanged: () => {
      modern.notify.toolsChanged();
    },
    close: () => listening.close(),
  });
}
