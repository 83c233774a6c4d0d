/**
 * `connectUpstream`: one upstream MCP server behind the gateway, spoken to
 * with the SDK v2 client over stdio or Streamable HTTP. Its tool list is
 * cached until it says the list changed (`tool-list.ts`); a dropped
 * connection is made again by the next request (`sessions.ts`); a call is
 * retried and guarded by a circuit breaker (`calls.ts`, `resilience.ts`); an
 * HTTP upstream down at start may be served as unavailable and connected in
 * the background; every fault reaches the caller as an `ExtensionError` and
 * the log once per outage.
 */
import { ExtensionError } from '@ext/core';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { Upstream } from '../config/schema.js';
import { UpstreamCalls } from './calls.js';
import { UpstreamHealth } from './health.js';
import { UpstreamResilience, resilienceSettings, type BreakerState, type UpstreamObserver } from './resilience.js';
import { UpstreamSessions, type UpstreamScope } from './sessions.js';
import { ToolList, watchToolChanges, type ChangeWatch } from './tool-list.js';
import { isStdio, timeoutOf } from './transport.js';
import type {
  ConnectUpstreamOptions,
  ToolsChangedListener,
  UpstreamCallOptions,
  UpstreamConnection,
  UpstreamTool,
} from './types.js';

/** The first and the longest wait between background connects to an upstream down at start. */
const RECONNECT_INITIAL_DELAY_MS = 1000;
const RECONNECT_MAX_DELAY_MS = 30_000;

class Connection implements UpstreamConnection {
  readonly name: string;
  readonly #upstream: Upstream;
  readonly #options: ConnectUpstreamOptions;
  /** Each registration apart, so one observer registered twice is removed once per registration. */
  readonly #observers = new Set<{ readonly observer: UpstreamObserver }>();
  readonly #resilience: UpstreamResilience;
  readonly #sessions: UpstreamSessions;
  readonly #calls: UpstreamCalls;
  readonly #toolList: ToolList;

  constructor(name: string, upstream: Upstream, options: ConnectUpstreamOptions) {
    this.name = name;
    this.#upstream = upstream;
    this.#options = options;
    const health = new UpstreamHealth(name, options.logger, Date.now, (up) => {
      options.recorder?.upstreamState(name, up);
    });
    const scope: UpstreamScope = { name, upstream, options, health, timeoutMs: timeoutOf(upstream) };
    this.#resilience = new UpstreamResilience(name, resilienceSettings(upstream), this.#observer());
    this.#toolList = new ToolList(name, options.logger, () => this.#calls.listTools());
    const watch = this.#changeWatch(scope.timeoutMs);
    this.#sessions = new UpstreamSessions(scope, {
      toolsChanged: () => {
        this.#toolList.changed();
      },
      connected: (session) => {
        watchToolChanges(session, session.client.autoOpenedSubscription, watch);
      },
    });
    this.#calls = new UpstreamCalls(scope, this.#sessions, this.#resilience, () => this.#toolList.listed);
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

  #changeWatch(timeoutMs: number): ChangeWatch {
    return {
      timeoutMs,
      closed: () => this.#sessions.closed,
      changed: () => {
        this.#toolList.changed();
      },
      debug: (message) => this.#options.logger.debug?.(`upstream ${this.name}: ${message}`),
    };
  }

  tools(): Promise<readonly UpstreamTool[]> {
    return this.#toolList.tools();
  }

  onToolsChanged(listener: ToolsChangedListener): () => void {
    return this.#toolList.onToolsChanged(listener);
  }

  callTool(name: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    return this.#calls.callTool(name, args, options);
  }

  breakerState(): BreakerState {
    return this.#resilience.state;
  }

  isConnected(): boolean {
    return this.#sessions.live !== undefined;
  }

  observe(observer: UpstreamObserver): () => void {
    const registered = { observer };
    this.#observers.add(registered);
    return () => {
      this.#observers.delete(registered);
    };
  }

  async close(): Promise<void> {
    if (this.#sessions.closed) return;
    this.#toolList.clear();
    await this.#sessions.close();
  }

  /** Connects and lists the tools; resolves once both are done. */
  async #open(): Promise<void> {
    await this.#sessions.session();
    await this.#toolList.tools();
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
      this.#toolList.started();
    } catch (error) {
      const servable = ExtensionError.isInstance(error) && error.category === 'transient' && !isStdio(this.#upstream);
      if (this.#options.servesWhileDown === true && servable) {
        this.#options.logger.warn(
          `Upstream "${this.name}" is down at start: served without its tools, which appear once it answers`,
          { upstream: this.name, code: error.code },
        );
        this.#toolList.started();
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
      handleWhen(() => !this.#sessions.closed),
      {
        maxAttempts: Number.POSITIVE_INFINITY,
        backoff: new ExponentialBackoff({ initialDelay: RECONNECT_INITIAL_DELAY_MS, maxDelay: RECONNECT_MAX_DELAY_MS }),
      },
    ).dangerouslyUnref();
    const generation = this.#toolList.generation;
    attempts
      .execute(async () => {
        if (this.#sessions.closed) return;
        await this.#open();
        // Connected at start but not listed: no connect since told anyone, so the listing does.
        if (this.#toolList.generation === generation) this.#toolList.changed();
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
