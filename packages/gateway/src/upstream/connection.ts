/**
 * `connectUpstream`: one upstream MCP server behind the gateway, spoken to
 * with the SDK v2 client over stdio or Streamable HTTP. Its tool list is
 * cached until it says the list changed; a dropped connection is made again
 * once before a request fails; every fault reaches the caller as an
 * `ExtensionError` and the log once per outage.
 */
import { ExtensionError } from '@ext/core';
import type { CallToolResult, Client, McpSubscription, Tool } from '@modelcontextprotocol/client';
import type { Upstream } from '../config/schema.js';
import { classifyFault, unavailable, type FaultContext } from './faults.js';
import { UpstreamHealth } from './health.js';
import {
  createUpstreamClient,
  createUpstreamTransport,
  isStdio,
  timeoutOf,
  type UpstreamTransport,
} from './transport.js';
import type {
  ConnectUpstreamOptions,
  ToolsChangedListener,
  UpstreamCallOptions,
  UpstreamConnection,
  UpstreamTool,
} from './types.js';

/** How long closing waits for an HTTP upstream to end its session. */
const TERMINATE_WAIT_MS = 1000;

/**
 * How long a `subscriptions/listen` stream must have lasted for its loss to
 * be answered by listening again (a server that ends every stream at once
 * is not listened to in a loop; the next connect listens again).
 */
const RELISTEN_AFTER_MS = 1000;

interface Session {
  readonly client: Client;
  readonly link: UpstreamTransport;
  /** Set once the gateway lets go of it: its close is then no outage. */
  released: boolean;
}

/** The fields of a listed tool the gateway passes on. */
export function toUpstreamTool(tool: Tool): UpstreamTool {
  const { name, title, description, inputSchema, outputSchema, annotations, _meta } = tool;
  return {
    name,
    inputSchema,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(_meta === undefined ? {} : { _meta }),
  };
}

/** `error` with more details (its other fields kept). */
function withDetails(error: ExtensionError, extra: Record<string, unknown>): ExtensionError {
  if (Object.keys(extra).length === 0) return error;
  return new ExtensionError(error.category, error.code, error.message, {
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    details: { ...error.details, ...extra },
    cause: error.cause,
  });
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Closes the session's client, then lets go of its transport's sockets. Never rejects. */
async function closeSession(session: Session): Promise<void> {
  await session.client.close().catch(() => undefined);
  session.link.dispose();
}

class Connection implements UpstreamConnection {
  readonly name: string;
  readonly #upstream: Upstream;
  readonly #options: ConnectUpstreamOptions;
  readonly #health: UpstreamHealth;
  readonly #timeoutMs: number;
  readonly #listeners = new Set<ToolsChangedListener>();
  #live: Session | undefined;
  #connecting: Promise<Session> | undefined;
  #lastConnectError: ExtensionError | undefined;
  #everConnected = false;
  #closed = false;
  /** Bumped whenever the tool list may have changed. */
  #generation = 0;
  #tools: { readonly generation: number; readonly list: readonly UpstreamTool[] } | undefined;
  #listing: { readonly generation: number; readonly promise: Promise<readonly UpstreamTool[]> } | undefined;

  constructor(name: string, upstream: Upstream, options: ConnectUpstreamOptions) {
    this.name = name;
    this.#upstream = upstream;
    this.#options = options;
    this.#health = new UpstreamHealth(name, options.logger);
    this.#timeoutMs = timeoutOf(upstream);
  }

  #context(operation: string): FaultContext {
    return { upstream: this.name, operation, timeoutMs: this.#timeoutMs, stdio: isStdio(this.#upstream) };
  }

  async #connect(): Promise<Session> {
    const link = createUpstreamTransport(this.name, this.#upstream, this.#options.logger);
    const client = createUpstreamClient(this.#upstream, this.#options.clientInfo, () => {
      this.#toolsChanged();
    });
    const session: Session = { client, link, released: false };
    client.onclose = () => {
      this.#dropped(session);
    };
    client.onerror = (error) => this.#options.logger.debug?.(`upstream ${this.name}: ${error.message}`);
    try {
      await client.connect(link.transport, { timeout: this.#timeoutMs });
      return session;
    } catch (error) {
      session.released = true;
      await closeSession(session);
      const tail = link.stderrTail();
      throw withDetails(classifyFault(error, this.#context('connect')).error, tail === '' ? {} : { stderr: tail });
    }
  }

  /** The connection closed without the gateway asking: the next request connects again. */
  #dropped(session: Session): void {
    if (session.released) return;
    session.released = true;
    if (this.#live === session) this.#live = undefined;
    if (this.#closed) return;
    const reason = isStdio(this.#upstream) ? 'its process exited' : 'its connection closed';
    const tail = session.link.stderrTail();
    this.#health.failed(
      withDetails(unavailable(this.#context('connection'), reason).error, tail === '' ? {} : { stderr: tail }),
    );
  }

  /** Lets go of a session whose connection is gone (closing what is left of it). */
  #discard(session: Session): void {
    session.released = true;
    if (this.#live === session) this.#live = undefined;
    void closeSession(session);
  }

  /** The live session, or a new one (at most one connect at a time; none while a failed one's wait runs). */
  #session(): Promise<Session> {
    if (this.#closed) return Promise.reject(unavailable(this.#context('connect'), 'the gateway closed it').error);
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    if (this.#connecting !== undefined) return this.#connecting;
    const waitSeconds = this.#health.waitSeconds();
    const last = this.#lastConnectError;
    if (waitSeconds > 0 && last !== undefined) return Promise.reject(this.#stillFailing(last, waitSeconds));
    const connecting = this.#connect().then(
      (session) => this.#connected(session),
      (error: unknown) => {
        this.#connecting = undefined;
        this.#health.connectFailed();
        this.#lastConnectError = error as ExtensionError;
        throw this.#health.failed(error as ExtensionError);
      },
    );
    this.#connecting = connecting;
    return connecting;
  }

  /** The last connect's failure again, telling the caller how long is left before the next connect. */
  #stillFailing(last: ExtensionError, waitSeconds: number): ExtensionError {
    if (last.category !== 'transient') return last;
    return new ExtensionError(last.category, last.code, last.message, {
      retryAfterSeconds: waitSeconds,
      ...(last.details === undefined ? {} : { details: last.details }),
      cause: last.cause,
    });
  }

  async #connected(session: Session): Promise<Session> {
    this.#connecting = undefined;
    if (this.#closed) {
      await this.#release(session);
      throw unavailable(this.#context('connect'), 'the gateway closed it').error;
    }
    this.#live = session;
    this.#watchChanges(session, session.client.autoOpenedSubscription);
    this.#health.recovered();
    // A new process or session may offer other tools than the last one did.
    if (this.#everConnected) this.#toolsChanged();
    this.#everConnected = true;
    return session;
  }

  /**
   * Runs `request` on the live session. When the connection turns out to be
   * gone, connects again once and repeats it, if it cannot have reached the
   * upstream or `repeatable` says running it twice is harmless.
   */
  async #run<T>(
    operation: string,
    signal: AbortSignal | undefined,
    repeatable: boolean,
    request: (client: Client) => Promise<T>,
  ): Promise<T> {
    const context = this.#context(operation);
    let session = await this.#session();
    for (let attempt = 0; ; attempt += 1) {
      try {
        const result = await request(session.client);
        this.#health.recovered();
        return result;
      } catch (error) {
        if (signal?.aborted === true) throw signal.reason;
        const fault = classifyFault(error, context);
        if (fault.dropped) this.#discard(session);
        const again = fault.dropped && attempt === 0 && (!fault.delivered || repeatable) && !this.#closed;
        if (!again) throw this.#report(fault.error);
        session = await this.#session();
      }
    }
  }

  /** A transient fault is (part of) an outage; any other answer means the upstream answers. */
  #report(error: ExtensionError): ExtensionError {
    if (error.category === 'transient') return this.#health.failed(error);
    this.#health.recovered();
    return error;
  }

  /** On 2026-07-28, tool-list changes come on a `subscriptions/listen` stream: when it ends, listen again. */
  #watchChanges(session: Session, subscription: McpSubscription | undefined): void {
    if (subscription === undefined) return;
    const openedAt = Date.now();
    void subscription.closed.then((how) => this.#listenEnded(session, how, openedAt));
  }

  async #listenEnded(session: Session, how: 'local' | 'graceful' | 'remote', openedAt: number): Promise<void> {
    if (how === 'local' || session.released || this.#closed) return;
    // Changes sent while nobody listened are not sent again: the list is read anew.
    this.#toolsChanged();
    const debug = (message: string) => this.#options.logger.debug?.(`upstream ${this.name}: ${message}`);
    if (Date.now() - openedAt < RELISTEN_AFTER_MS) {
      debug('its tool-change stream ended at once; listening again at the next connect');
      return;
    }
    try {
      const next = await session.client.listen({ toolsListChanged: true }, { timeout: this.#timeoutMs });
      this.#watchChanges(session, next);
    } catch (error) {
      debug(`listening for tool changes failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #toolsChanged(): void {
    this.#generation += 1;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch (error) {
        this.#options.logger.warn(`upstream ${this.name}: a tools-changed listener threw`, { error: String(error) });
      }
    }
  }

  tools(): Promise<readonly UpstreamTool[]> {
    const generation = this.#generation;
    if (this.#tools?.generation === generation) return Promise.resolve(this.#tools.list);
    if (this.#listing?.generation === generation) return this.#listing.promise;
    const promise = this.#list(generation);
    const listing = { generation, promise };
    this.#listing = listing;
    const forget = () => {
      if (this.#listing === listing) this.#listing = undefined;
    };
    promise.then(forget, forget);
    return promise;
  }

  async #list(generation: number): Promise<readonly UpstreamTool[]> {
    try {
      const { tools } = await this.#run('tools/list', undefined, true, (client) =>
        client.listTools(undefined, { timeout: this.#timeoutMs, cacheMode: 'refresh' }),
      );
      const list = tools.map(toUpstreamTool);
      if (this.#tools === undefined || generation >= this.#tools.generation) this.#tools = { generation, list };
      return list;
    } catch (error) {
      // Already logged as an outage: the last list stands until the upstream answers again.
      if (this.#tools !== undefined) return this.#tools.list;
      throw error;
    }
  }

  onToolsChanged(listener: ToolsChangedListener): () => void {
    const registered = (): void => {
      listener();
    };
    this.#listeners.add(registered);
    return () => {
      this.#listeners.delete(registered);
    };
  }

  callTool(name: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const { signal, meta } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const params = { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) };
    return this.#run('tools/call', signal, false, (client) =>
      client.callTool(params, { timeout: this.#timeoutMs, ...(signal === undefined ? {} : { signal }) }),
    );
  }

  async #release(session: Session): Promise<void> {
    session.released = true;
    await Promise.race([session.link.terminate(), wait(TERMINATE_WAIT_MS)]);
    await closeSession(session);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    const live = this.#live;
    this.#live = undefined;
    const connecting = this.#connecting?.catch(() => undefined);
    if (live !== undefined) await this.#release(live);
    // A connect under way finds the connection closed and releases its own session.
    await connecting;
  }

  /** The first connect: a failure closes everything and is thrown. */
  async start(): Promise<void> {
    try {
      await this.#session();
      await this.tools();
    } catch (error) {
      await this.close();
      throw error;
    }
  }
}

/**
 * Connects to the upstream `name` describes and lists its tools; throws an
 * `ExtensionError` (`UPSTREAM_UNAVAILABLE`, `UPSTREAM_TIMEOUT`, ...) naming
 * it when that fails.
 */
export async function connectUpstream(
  name: string,
  upstream: Upstream,
  options: ConnectUpstreamOptions,
): Promise<UpstreamConnection> {
  const connection = new Connection(name, upstream, options);
  await connection.start();
  return connection;
}
