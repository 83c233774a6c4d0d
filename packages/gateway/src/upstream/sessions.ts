/**
 * The sessions of one upstream connection: the SDK client's session with
 * the upstream, made when a request needs one (at most one connect at a
 * time), let go of when its connection drops (the next request connects
 * again), and released, its HTTP session ended, when the gateway closes the
 * connection. A drop reaches the upstream's health as an outage.
 */
import { ExtensionError } from '@ext/core';
import type { Client } from '@modelcontextprotocol/client';
import type { Upstream } from '../config/schema.js';
import { classifyFault, unavailable, type FaultContext } from './faults.js';
import type { UpstreamHealth } from './health.js';
import { leanCallerFor, type LeanHttpCaller } from './lean-http.js';
import { tapListedAnnotations } from './listed-annotations.js';
import { createUpstreamClient, createUpstreamTransport, isStdio, type UpstreamTransport } from './transport.js';
import type { ConnectUpstreamOptions } from './types.js';

/** How long closing waits for an HTTP upstream to end its session. */
const TERMINATE_WAIT_MS = 1000;

export interface Session {
  readonly client: Client;
  readonly link: UpstreamTransport;
  /** Set once the gateway lets go of it: its close is then no outage. */
  released: boolean;
  /** Makes the calls the SDK client need not make (a 2026-07-28 HTTP upstream, see `lean-http.ts`). */
  lean?: LeanHttpCaller | undefined;
}

/** What the parts of one upstream connection share. */
export interface UpstreamScope {
  readonly name: string;
  readonly upstream: Upstream;
  readonly options: ConnectUpstreamOptions;
  readonly health: UpstreamHealth;
  readonly timeoutMs: number;
}

/** Who is told what a session hears. */
export interface SessionHooks {
  /** The upstream's tools may have changed: it said so, or a new session began. */
  readonly toolsChanged: () => void;
  /** `session` just went live (before its tools are told to have changed). */
  readonly connected: (session: Session) => void;
}

/** What a fault of `operation` on the upstream of `scope` is judged by. */
export function faultContext(scope: UpstreamScope, operation: string): FaultContext {
  return { upstream: scope.name, operation, timeoutMs: scope.timeoutMs, stdio: isStdio(scope.upstream) };
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

/** `error` with the tail of a stdio upstream's stderr, when it wrote any. */
function withStderr(error: ExtensionError, link: UpstreamTransport): ExtensionError {
  const tail = link.stderrTail();
  return withDetails(error, tail === '' ? {} : { stderr: tail });
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

export class UpstreamSessions {
  readonly #scope: UpstreamScope;
  readonly #hooks: SessionHooks;
  #live: Session | undefined;
  #connecting: Promise<Session> | undefined;
  #everConnected = false;
  #closed = false;

  constructor(scope: UpstreamScope, hooks: SessionHooks) {
    this.#scope = scope;
    this.#hooks = hooks;
  }

  /** Whether the gateway closed the connection. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The live session, if one is open now. */
  get live(): Session | undefined {
    return this.#live;
  }

  async #connect(): Promise<Session> {
    const { name, upstream, options, timeoutMs } = this.#scope;
    const link = createUpstreamTransport(name, upstream, options.logger);
    const client = createUpstreamClient(upstream, options.clientInfo, () => {
      this.#hooks.toolsChanged();
    });
    const session: Session = { client, link, released: false };
    client.onclose = () => {
      this.#dropped(session);
    };
    client.onerror = (error) => options.logger.debug?.(`upstream ${name}: ${error.message}`);
    tapListedAnnotations(client, link.transport);
    try {
      await client.connect(link.transport, { timeout: timeoutMs });
      session.lean = leanCallerFor(upstream, client, options.clientInfo, () => {
        this.#hooks.toolsChanged();
      });
      return session;
    } catch (error) {
      session.released = true;
      await closeSession(session);
      throw withStderr(classifyFault(error, faultContext(this.#scope, 'connect')).error, link);
    }
  }

  /** The connection closed without the gateway asking: the next request connects again. */
  #dropped(session: Session): void {
    if (session.released) return;
    session.released = true;
    if (this.#live === session) this.#live = undefined;
    if (this.#closed) return;
    const reason = isStdio(this.#scope.upstream) ? 'its process exited' : 'its connection closed';
    this.#scope.health.failed(
      withStderr(unavailable(faultContext(this.#scope, 'connection'), reason).error, session.link),
    );
  }

  /** Lets go of a session whose connection is gone (closing what is left of it). */
  discard(session: Session): void {
    session.released = true;
    if (this.#live === session) this.#live = undefined;
    void closeSession(session);
  }

  /**
   * The live session, or a new one (at most one connect at a time). While
   * the upstream stays down, its breaker, not this, keeps calls from
   * connecting again and again.
   */
  session(): Promise<Session> {
    if (this.#closed)
      return Promise.reject(unavailable(faultContext(this.#scope, 'connect'), 'the gateway closed it').error);
    if (this.#live !== undefined) return Promise.resolve(this.#live);
    if (this.#connecting !== undefined) return this.#connecting;
    const connecting = this.#connect().then(
      (session) => this.#connected(session),
      (error: unknown) => {
        this.#connecting = undefined;
        throw this.#scope.health.failed(error as ExtensionError);
      },
    );
    this.#connecting = connecting;
    return connecting;
  }

  async #connected(session: Session): Promise<Session> {
    this.#connecting = undefined;
    if (this.#closed) {
      await this.#release(session);
      throw unavailable(faultContext(this.#scope, 'connect'), 'the gateway closed it').error;
    }
    this.#live = session;
    this.#hooks.connected(session);
    this.#scope.health.recovered();
    if (this.#everConnected) this.#scope.options.recorder?.reconnected(this.#scope.name);
    // A new process or session may offer other tools than the last one did; an upstream down at start offers its first.
    this.#hooks.toolsChanged();
    this.#everConnected = true;
    return session;
  }

  async #release(session: Session): Promise<void> {
    session.released = true;
    await Promise.race([session.link.terminate(), wait(TERMINATE_WAIT_MS)]);
    await closeSession(session);
  }

  /** Releases the live session and any being made; requests from now on fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const live = this.#live;
    this.#live = undefined;
    const connecting = this.#connecting?.catch(() => undefined);
    if (live !== undefined) await this.#release(live);
    // A connect under way finds the connection closed and releases its own session.
    await connecting;
  }
}
