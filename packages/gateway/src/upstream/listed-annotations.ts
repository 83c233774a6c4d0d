/**
 * The annotations of an upstream's tools as its `tools/list` answers carried
 * them. The SDK client's `listTools()` parses annotations with a closed
 * schema and drops the fields it does not know, among them SEP-3172's
 * `recovery` (a compensation the gateway runs, GW-52); the transport is
 * tapped so that what the upstream said is kept, while the listing itself
 * (pages, cache, header checks) stays the SDK's.
 */
import type { Client, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type Handler = NonNullable<Transport['onmessage']>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The annotations one connection's `tools/list` answers carried, by tool name. */
class ListedAnnotations {
  readonly #pending = new Set<string | number>();
  readonly byTool = new Map<string, Record<string, unknown>>();

  sent(message: JSONRPCMessage): void {
    if ('method' in message && message.method === 'tools/list' && 'id' in message) this.#pending.add(message.id);
  }

  received(message: JSONRPCMessage): void {
    if (!('id' in message) || !('result' in message) || !this.#pending.delete(message.id)) return;
    const tools = (message.result as Record<string, unknown>).tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools as unknown[]) {
      if (isObject(tool) && typeof tool.name === 'string' && isObject(tool.annotations)) {
        this.byTool.set(tool.name, tool.annotations);
      }
    }
  }
}

const listings = new WeakMap<Client, ListedAnnotations>();

/** Taps `transport` (before `client` connects over it) to keep what its `tools/list` answers say. */
export function tapListedAnnotations(client: Client, transport: Transport): void {
  const listed = new ListedAnnotations();
  listings.set(client, listed);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    listed.sent(message);
    return send(message, options);
  };
  // The client sets its handler when it connects: wrap whatever it sets.
  let handler: Handler | undefined = transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Handler | undefined) => {
      handler =
        next === undefined
          ? undefined
          : (message, extra) => {
              listed.received(message);
              next(message, extra);
            };
    },
  });
}

/** `tools` with each one's annotations as the upstream sent them (the SDK's parse is a subset of them). */
export function withListedAnnotations<T extends { readonly name: string; readonly annotations?: object | undefined }>(
  client: Client,
  tools: readonly T[],
): T[] {
  const listed = listings.get(client);
  return tools.map((tool) => {
    const raw = listed?.byTool.get(tool.name);
    return raw === undefined ? tool : { ...tool, annotations: { ...raw, ...tool.annotations } };
  });
}
