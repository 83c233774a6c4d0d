/**
 * Where a client's streaming notifications arrive: one handler per client
 * and method routing them by operation id, and the inbox an attempt reads
 * them from in arrival order.
 */
import type { ExtendedClient, ToolResult } from '@ext/core';
import { streamingMethod } from './schema.js';

/** Receives the notifications of one operation. */
export type Listener = (event: 'progress' | 'chunk', params: Record<string, unknown>) => void;

// One notification handler per client and method, routing by operation id:
// v1's SDK keeps a single handler per method, so each call cannot add its own.
const routes = new WeakMap<ExtendedClient, Map<string, Map<string, Listener>>>();

/** The listeners by operation id of `client`'s notifications under identifier `id`; installs the handlers once. */
export function routeTable(client: ExtendedClient, id: string): Map<string, Listener> {
  let byId = routes.get(client);
  if (byId === undefined) {
    byId = new Map();
    routes.set(client, byId);
  }
  let table = byId.get(id);
  if (table === undefined) {
    const listeners = new Map<string, Listener>();
    for (const event of ['progress', 'chunk'] as const) {
      client.onNotification(streamingMethod(id, event), (params) => {
        const operation = params.operation_id;
        if (typeof operation === 'string') listeners.get(operation)?.(event, params);
      });
    }
    byId.set(id, listeners);
    table = listeners;
  }
  return table;
}

/** What reaches an attempt: MCP progress, the extension's notifications, and how the call ended. */
export type Item =
  | {
      readonly kind: 'mcp';
      readonly progress: number;
      readonly total: number | undefined;
      readonly message: string | undefined;
    }
  | { readonly kind: 'progress' | 'chunk'; readonly params: Record<string, unknown> }
  | { readonly kind: 'done'; readonly result: ToolResult }
  | { readonly kind: 'failed'; readonly error: unknown };

/** An MCP `notifications/progress` as an attempt received it. */
export type McpProgress = Extract<Item, { kind: 'mcp' }>;

/** What the callbacks of one attempt deliver, read in arrival order by the iterator. */
export class Inbox {
  #items: Item[] = [];
  #head = 0;
  #wake: (() => void) | undefined;

  push(item: Item): void {
    this.#items.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async next(): Promise<Item> {
    while (this.#head >= this.#items.length) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    const item = this.#items[this.#head] as Item;
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
