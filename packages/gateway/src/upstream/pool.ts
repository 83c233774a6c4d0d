/**
 * `UpstreamPool`: every upstream of a config behind one list of tools. With
 * one upstream its tools keep their names; with several each is offered as
 * `<upstream>__<tool>`, and a call is routed back to the upstream and the
 * name it has there.
 */
import { ExtensionError } from '@ext/core';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Upstream } from '../config/schema.js';
import { connectUpstream } from './connection.js';
import type { BreakerState, UpstreamObserver } from './resilience.js';
import type {
  ConnectUpstreamOptions,
  ToolsChangedListener,
  UpstreamCallOptions,
  UpstreamConnection,
  UpstreamTool,
} from './types.js';

/** Between an upstream's name and its tool's, with several upstreams. */
export const NAMESPACE_SEPARATOR = '__';

/** A tool as the gateway offers it: its exposed name, and where it comes from. */
export interface ExposedTool extends UpstreamTool {
  /** The name the gateway offers (`<upstream>__<tool>` with several upstreams). */
  readonly name: string;
  /** The upstream's name in the config. */
  readonly upstream: string;
  /** The tool's name at its upstream. */
  readonly originalName: string;
}

/** The name `tool` of `upstream` is offered as, `namespaced` when the pool has several upstreams. */
export function exposedName(upstream: string, tool: string, namespaced: boolean): string {
  return namespaced ? `${upstream}${NAMESPACE_SEPARATOR}${tool}` : tool;
}

/** The (upstream, tool) pairs an exposed name can stand for, given the upstreams' names. */
export function splitExposedName(
  name: string,
  upstreams: readonly string[],
): readonly { readonly upstream: string; readonly tool: string }[] {
  if (upstreams.length === 1) return upstreams.map((upstream) => ({ upstream, tool: name }));
  return upstreams
    .filter((upstream) => name.startsWith(`${upstream}${NAMESPACE_SEPARATOR}`))
    .map((upstream) => ({ upstream, tool: name.slice(upstream.length + NAMESPACE_SEPARATOR.length) }))
    .filter(({ tool }) => tool !== '');
}

/** `connection`'s tools; none when it was never listed (its failure is logged as its outage). */
function listedTools(connection: UpstreamConnection): Promise<readonly UpstreamTool[]> {
  return connection.tools().catch(() => []);
}

function unknownTool(name: string): ExtensionError {
  return new ExtensionError('invalid_input', 'UNKNOWN_TOOL', `No tool named "${name}" behind the gateway`, {
    details: { tool: name },
  });
}

export class UpstreamPool {
  readonly #connections: ReadonlyMap<string, UpstreamConnection>;

  /** A pool over connections already made, by upstream name. */
  constructor(connections: Readonly<Record<string, UpstreamConnection>>) {
    this.#connections = new Map(Object.entries(connections));
  }

  /**
   * Connects to every upstream at once. An HTTP upstream that cannot be
   * reached is served as unavailable (no tools until it answers, connected
   * again in the background); any other failure closes the others and is
   * thrown (an `ExtensionError` naming the upstream).
   */
  static async connect(
    upstreams: Readonly<Record<string, Upstream>>,
    options: ConnectUpstreamOptions,
  ): Promise<UpstreamPool> {
    const entries = Object.entries(upstreams);
    const settled = await Promise.allSettled(
      entries.map(([name, upstream]) => connectUpstream(name, upstream, { servesWhileDown: true, ...options })),
    );
    const connected = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) {
      await Promise.allSettled(connected.map((connection) => connection.close()));
      throw failure.reason;
    }
    return new UpstreamPool(Object.fromEntries(connected.map((connection) => [connection.name, connection])));
  }

  /** The upstreams' names, in config order. */
  get upstreams(): readonly string[] {
    return [...this.#connections.keys()];
  }

  /** The connection to one upstream. */
  connection(name: string): UpstreamConnection | undefined {
    return this.#connections.get(name);
  }

  get #namespaced(): boolean {
    return this.#connections.size > 1;
  }

  /** Every upstream's tools, as the gateway offers them; none of an upstream never listed (down since the start). */
  async tools(): Promise<readonly ExposedTool[]> {
    const lists = await Promise.all(
      [...this.#connections].map(async ([upstream, connection]) =>
        (await listedTools(connection)).map((tool): ExposedTool => ({
          ...tool,
          name: exposedName(upstream, tool.name, this.#namespaced),
          upstream,
          originalName: tool.name,
        })),
      ),
    );
    return lists.flat();
  }

  /** Where an exposed name leads; when upstream names overlap (`a`, `a__b`), the one that has the tool. */
  async #resolve(name: string): Promise<{ connection: UpstreamConnection; tool: string }> {
    const candidates = splitExposedName(name, this.upstreams);
    for (const { upstream, tool } of candidates) {
      const connection = this.#connections.get(upstream);
      if (connection === undefined) continue;
      if (candidates.length === 1) return { connection, tool };
      if ((await listedTools(connection)).some((listed) => listed.name === tool)) return { connection, tool };
    }
    throw unknownTool(name);
  }

  /** Calls the tool offered as `name` at its upstream. */
  async call(name: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const { connection, tool } = await this.#resolve(name);
    return connection.callTool(tool, args, options);
  }

  /** Registers `listener` for changes of any upstream's tools; returns the function that removes it. */
  onToolsChanged(listener: ToolsChangedListener): () => void {
    const removers = [...this.#connections.values()].map((connection) => connection.onToolsChanged(listener));
    return () => {
      for (const remove of removers) remove();
    };
  }

  /** The circuit breaker's state of the upstream `name` (`undefined`: no such upstream). */
  breakerState(name: string): BreakerState | undefined {
    return this.#connections.get(name)?.breakerState();
  }

  /** Whether a connection to the upstream `name` is open now. */
  isConnected(name: string): boolean {
    return this.#connections.get(name)?.isConnected() === true;
  }

  /** Registers `observer` for every upstream's breaker changes and retries; returns the function that removes it. */
  observe(observer: UpstreamObserver): () => void {
    const removers = [...this.#connections.values()].map((connection) => connection.observe(observer));
    return () => {
      for (const remove of removers) remove();
    };
  }

  /** Closes every connection (every stdio upstream's process ends). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#connections.values()].map((connection) => connection.close()));
  }
}
