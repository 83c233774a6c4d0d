/**
 * `connectUpstream`: one upstream MCP server behind the gateway, spoken to
 * with the SDK v2 client over stdio or Streamable HTTP. Its tool list is
 * cached until it says the list changed; a dropped connection is made again
 * by the next request; a call is retried and guarded by a circuit breaker
 * (`resilience.ts`); an HTTP upstream down at start may be served as
 * unavailable and connected in the background; every fault reaches the
 * caller as an `ExtensionError` and the log once per outage.
 */
import { ExtensionError } from '@ext/core';
import {
  SdkError,
  SdkErrorCode,
  type CallToolResult,
  type Client,
  type McpSubscription,
  type Tool,
} from '@modelcontextprotocol/client';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { Upstream } from '../config/schema.js';
import { atStage, classifyFault, stageOf, unavailable, type FaultContext } from './faults.js';
import { UpstreamHealth } from './health.js';
import { UpstreamResilience, resilienceSettings, type BreakerState, type UpstreamObserver } from './resilience.js';
import { callThrough, leanCallerFor, type LeanHttpCaller } from './lean-http.js';
import { tapListedAnnotations, withListedAnnotations } from './listed-annotations.js';
import { UNSAFE_CALL } from './retry-decision.js';
import {
  createUpstreamClient,
  createUpstreamTransport,
  isStdio,
  timeoutOf,
  watchingResponses,
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

/** The first and the longest wait between background connects to an upstream down at start. */
const RECONNECT_INITIAL_DELAY_MS = 1000;
const RECONNECT_MAX_DELAY_MS = 30_000;

type CallParams = Parameters<Client['callTool']>[0];

interface Session {
  readonly client: Client;
  readonly link: UpstreamTransport;
  /** Set once the gateway lets go of it: its close is then no outage. */
  released: boolean;
  /** Makes the calls the SDK client need not make (a 2026-07-28 HTTP upstream, see `lean-http.ts`). */
  lean?: LeanHttpCaller | undefined;
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
  session.lean?.close();
}

class Connection implements UpstreamConnection {
  readonly name: string;
  readonly #upstream: Upstream;
  readonly #options: ConnectUpstreamOptions;
  readonly #health: UpstreamHealth;
  readonly #timeoutMs: number;
  readonly #listeners = new Set<ToolsChangedListener>();
  /** Each registration apart, so one observer registered twice is removed once per registration. */
  readonly #observers = new Set<{ readonly observer: UpstreamObserver }>();
  readonly #resilience: UpstreamResilience;
  #live: Session | undefined;
  #connecting: Promise<Session> | undefined;
  #everConnected = false;
  #closed = false;
  /** Set once `start` resolved: a change of tools after it that nobody heard is told to the next listener. */
  #started = false;
  #unheardChange = false;
  /** Bumped whenever the tool list may have changed. */
  #generation = 0;
  #tools: { readonly generation: number; readonly list: readonly UpstreamTool[] } | undefined;
  #listing: { readonly generation: number; readonly promise: Promise<readonly UpstreamTool[]> } | undefined;

  constructor(name: string, upstream: Upstream, options: ConnectUpstreamOptions) {
    this.name = name;
    this.#upstream = upstream;
    this.#options = options;
    this.#health = new UpstreamHealth(name, options.logger, Date.now, (up) => {
      options.recorder?.upstreamState(name, up);
    });
    this.#timeoutMs = timeoutOf(upstream);
    this.#resilience = new UpstreamResilience(name, resilienceSettings(upstream), this.#observer());
  }

  /** What the resilience tells: passed on to the recorder and every observer. */
  #observer(): Required<UpstreamObserver> {
    const each = (tell: (observer: UpstreamObserver) => void) => {
      for (const { observer } of this.#observers) tell(observer);
    };
    return {
      breakerState: (upstream: string, state: BreakerState) => {
        this.#options.recorder?.breakerState(upstream, state);
        each((observer) => observer.breakerState?.(upstream, state));
      },
      retried: (upstream: string) => {
        this.#options.recorder?.retried(upstream);
        each((observer) => observer.retried?.(upstream));
      },
    };
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
    tapListedAnnotations(client, link.transport);
    try {
      await client.connect(link.transport, { timeout: this.#timeoutMs });
      session.lean = leanCallerFor(this.#upstream, client, this.#options.clientInfo, () => {
        this.#toolsChanged();
      });
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

  /**
   * The live session, or a new one (at most one connect at a time). While
   * the upstream stays down, its breaker, not this, keeps calls from
   * connecting again and again.
   */
  #session(): Promise<Session> {
    if (this.#closed) return Promise.reject(unavailable(this.#context('connect'), 'the gateway closed it').error);
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    if (this.#connecting !== undefined) return this.#connecting;
    const connecting = this.#connect().then(
      (session) => this.#connected(session),
      (error: unknown) => {
        this.#connecting = undefined;
        throw this.#health.failed(error as ExtensionError);
      },
    );
    this.#connecting = connecting;
    return connecting;
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
    if (this.#everConnected) this.#options.recorder?.reconnected(this.name);
    // A new process or session may offer other tools than the last one did; an upstream down at start offers its first.
    this.#toolsChanged();
    this.#everConnected = true;
    return session;
  }

  /**
   * Runs `request`, which is harmless to repeat (a listing), on the live
   * session. When the connection turns out to be gone, connects again once
   * and repeats it.
   */
  async #run<T>(operation: string, request: (client: Client) => Promise<T>): Promise<T> {
    const context = this.#context(operation);
    let session = await this.#session();
    for (let attempt = 0; ; attempt += 1) {
      try {
        const result = await request(session.client);
        this.#health.recovered();
        return result;
      } catch (error) {
        const fault = classifyFault(error, context);
        if (fault.dropped) this.#discard(session);
        if (!fault.dropped || attempt > 0 || this.#closed) throw this.#report(fault.error);
        session = await this.#session();
      }
    }
  }

  /**
   * One try of a call, on the live session or a new one, within `timeoutMs`.
   * Its fault is thrown marked with how far the request got (what a retry
   * may do about it); an answer that breaks off mid-stream (the upstream
   * died) fails it at once, not at its timeout.
   */
  async #tryCall(params: CallParams, signal: AbortSignal | undefined, timeoutMs: number): Promise<CallToolResult> {
    // Not marked: nothing to retry, and no fault of the upstream's for its breaker.
    if (this.#closed) throw unavailable(this.#context('tools/call'), 'the gateway closed it').error;
    // Aborted by the caller, or by the answer breaking off.
    const stop = new AbortController();
    const broken = (error: Error) => {
      stop.abort(new SdkError(SdkErrorCode.ConnectionClosed, `its answer broke off: ${error.message}`));
    };
    const cancel = () => {
      stop.abort(signal?.reason);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    let session: Session | undefined;
    try {
      session = await this.#session();
      const { client } = session;
      const options = { timeout: timeoutMs, signal: stop.signal };
      const result = await watchingResponses(broken, () =>
        callThrough(session?.lean, this.#tools?.list, client, params, options),
      );
      this.#health.recovered();
      return result;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      const fault = classifyFault(error, this.#context('tools/call'));
      if (fault.dropped && session !== undefined) this.#discard(session);
      throw atStage(fault.error, fault.delivered ? 'sent' : 'unsent');
    } finally {
      signal?.removeEventListener('abort', cancel);
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
    // An upstream down at start may come up before anyone listens (the gateway is still building its offer).
    if (this.#listeners.size === 0 && this.#started) this.#unheardChange = true;
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
      const tools = await this.#run('tools/list', async (client) =>
        withListedAnnotations(
          client,
          (await client.listTools(undefined, { timeout: this.#timeoutMs, cacheMode: 'refresh' })).tools,
        ),
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
    if (this.#unheardChange) {
      this.#unheardChange = false;
      queueMicrotask(registered);
    }
    return () => {
      this.#listeners.delete(registered);
    };
  }

  callTool(name: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const { signal, meta } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const params: CallParams = { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) };
    const call = {
      safety: options.safety ?? UNSAFE_CALL,
      attempts: options.attempts,
      signal,
      timeoutMs: this.#timeoutMs,
    };
    // Only the call's last fault counts for the outage log: one its retry mended is none.
    return this.#resilience
      .run(call, (timeoutMs) => this.#tryCall(params, signal, timeoutMs))
      .catch((error: unknown) => {
        throw stageOf(error) === undefined ? error : this.#report(error as ExtensionError);
      });
  }

  breakerState(): BreakerState {
    return this.#resilience.state;
  }

  isConnected(): boolean {
    return this.#live !== undefined;
  }

  observe(observer: UpstreamObserver): () => void {
    const registered = { observer };
    this.#observers.add(registered);
    return () => {
      this.#observers.delete(registered);
    };
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

  /** Connects and lists the tools; resolves once both are done. */
  async #open(): Promise<void> {
    await this.#session();
    await this.tools();
  }

  /**
   * The first connect. A failure closes everything and is thrown, unless
   * `servesWhileDown` and the upstream is an HTTP one that could not be
   * reached (a transient fault): then it is served as unavailable and
   * connected again in the background. A stdio upstream that cannot start
   * is a fault of the gateway's own setup, as is a refusal of its
   * credentials: waiting would not mend either.
   */
  async start(): Promise<void> {
    try {
      await this.#open();
      this.#started = true;
    } catch (error) {
      const servable = ExtensionError.isInstance(error) && error.category === 'transient' && !isStdio(this.#upstream);
      if (this.#options.servesWhileDown === true && servable) {
        this.#options.logger.warn(
          `Upstream "${this.name}" is down at start: served without its tools, which appear once it answers`,
          { upstream: this.name, code: error.code },
        );
        this.#started = true;
        this.#openInBackground();
        return;
      }
      await this.close();
      throw error;
    }
  }

  /** Connects again and again, with exponential backoff and jitter, until connected and listed or closed. */
  #openInBackground(): void {
    const attempts = retry(
      handleWhen(() => !this.#closed),
      {
        maxAttempts: Number.POSITIVE_INFINITY,
        backoff: new ExponentialBackoff({ initialDelay: RECONNECT_INITIAL_DELAY_MS, maxDelay: RECONNECT_MAX_DELAY_MS }),
      },
    ).dangerouslyUnref();
    const generation = this.#generation;
    attempts
      .execute(async () => {
        if (this.#closed) return;
        await this.#open();
        // Connected at start but not listed: no connect since told anyone, so the listing does.
        if (this.#generation === generation) this.#toolsChanged();
      })
      .catch(() => undefined);
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
