/**
 * The tool list of one upstream: listed once per change (readers at the
 * same time share one listing), kept until the upstream says it changed,
 * and each change told to the listeners. On 2026-07-28 changes come on a
 * `subscriptions/listen` stream, listened to again when it ends.
 */
import type { Logger } from '@ext/core';
import type { McpSubscription, Tool } from '@modelcontextprotocol/client';
import type { Session } from './sessions.js';
import type { ToolsChangedListener, UpstreamTool } from './types.js';

/**
 * How long a `subscriptions/listen` stream must have lasted for its loss to
 * be answered by listening again (a server that ends every stream at once
 * is not listened to in a loop; the next connect listens again).
 */
const RELISTEN_AFTER_MS = 1000;

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

export class ToolList {
  readonly #name: string;
  readonly #logger: Logger;
  /** Lists the upstream's tools now. */
  readonly #read: () => Promise<readonly Tool[]>;
  readonly #listeners = new Set<ToolsChangedListener>();
  /** Set once the connection started: a change of tools after it that nobody heard is told to the next listener. */
  #started = false;
  #unheardChange = false;
  /** Bumped whenever the tool list may have changed. */
  #generation = 0;
  #tools: { readonly generation: number; readonly list: readonly UpstreamTool[] } | undefined;
  #listing: { readonly generation: number; readonly promise: Promise<readonly UpstreamTool[]> } | undefined;

  constructor(name: string, logger: Logger, read: () => Promise<readonly Tool[]>) {
    this.#name = name;
    this.#logger = logger;
    this.#read = read;
  }

  /** Bumped whenever the tool list may have changed. */
  get generation(): number {
    return this.#generation;
  }

  /** The last list read, if any. */
  get listed(): readonly UpstreamTool[] | undefined {
    return this.#tools?.list;
  }

  /** The connection started (served, whether its upstream answered or not). */
  started(): void {
    this.#started = true;
  }

  /** The tool list may have changed: read anew next time, and told to every listener. */
  changed(): void {
    this.#generation += 1;
    // An upstream down at start may come up before anyone listens (the gateway is still building its offer).
    if (this.#listeners.size === 0 && this.#started) this.#unheardChange = true;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.warn(`upstream ${this.#name}: a tools-changed listener threw`, { error: String(error) });
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
      const list = (await this.#read()).map(toUpstreamTool);
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

  /** Forgets every listener (the connection closed). */
  clear(): void {
    this.#listeners.clear();
  }
}

/** How the tool-change stream of a session is listened to. */
export interface ChangeWatch {
  readonly timeoutMs: number;
  /** Whether the gateway closed the connection: nothing is listened to any more. */
  readonly closed: () => boolean;
  /** Told that the tools may have changed. */
  readonly changed: () => void;
  readonly debug: (message: string) => void;
}

/** On 2026-07-28, tool-list changes come on a `subscriptions/listen` stream: when it ends, listen again. */
export function watchToolChanges(
  session: Session,
  subscription: McpSubscription | undefined,
  watch: ChangeWatch,
): void {
  if (subscription === undefined) return;
  const openedAt = Date.now();
  void subscription.closed.then((how) => listenEnded(session, how, openedAt, watch));
}

async function listenEnded(
  session: Session,
  how: 'local' | 'graceful' | 'remote',
  openedAt: number,
  watch: ChangeWatch,
): Promise<void> {
  if (how === 'local' || session.released || watch.closed()) return;
  // Changes sent while nobody listened are not sent again: the list is read anew.
  watch.changed();
  if (Date.now() - openedAt < RELISTEN_AFTER_MS) {
    watch.debug('its tool-change stream ended at once; listening again at the next connect');
    return;
  }
  try {
    const next = await session.client.listen({ toolsListChanged: true }, { timeout: watch.timeoutMs });
    watchToolChanges(session, next, watch);
  } catch (error) {
    watch.debug(`listening for tool changes failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
