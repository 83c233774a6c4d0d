/**
 * The annotations of an upstream's tools as its `tools/list` answers carried
 * them. The SDK client's `listTools()` parses annotations with a closed
 * schema and drops the fields it does not know, among them SEP-3172's
 * `recovery` (a compensation the gateway runs, GW-52); the transport is
 * tapped so that what the upstream said is kept, while the listing itself
 * (pages, cache, header checks) stays the SDK's.
 */
import type { Client, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What one connection's messages are shown to. */
interface MessageObserver {
  sent(message: JSONRPCMessage): void;
  received(message: JSONRPCMessage): void;
}

/** The annotations one connection's `tools/list` answers carried, by tool name. */
class ListedAnnotations implements MessageObserver {
  readonly #pending = new Set<string | number>();
  readonly byTool = new Map<string, Record<string, unknown>>();

  sent(message: JSONRPCMessage): void {
    if ('method' in message && message.method === 'tools/list' && 'id' in message) this.#pending.add(message.id);
  }

  received(message: JSONRPCMessage): void {
    // Only a response settles a listing: a request from the upstream may carry the same id in its own numbering.
    if ('method' in message || !('id' in message) || message.id === undefined) return;
    if (!this.#pending.delete(message.id)) return;
    const result = 'result' in message ? message.result : undefined;
    const tools = isObject(result) ? result.tools : undefined;
    if (!Array.isArray(tools)) return;
    for (const tool of tools as unknown[]) {
      if (isObject(tool) && typeof tool.name === 'string' && isObject(tool.annotations)) {
        this.byTool.set(tool.name, tool.annotations);
      }
    }
  }
}

const listings = new WeakMap<Client, ListedAnnotations>();

/**
 * Shows `observer` every message `transport` sends, and every message it
 * receives once a client has connected over it (call it before `connect`).
 *
 * Inbound is a public seam: `Protocol.connect` chains an `onmessage` set
 * before it, calling it with each message ahead of its own dispatch, and
 * keeps doing so when it negotiates the version first (typescript-sdk PR
 * #2455). Outbound has none (a Client announces no request it sends), so
 * `send` is wrapped on this transport, which the gateway made for this one
 * connection.
 * Retired by: a client whose `listTools` keeps the annotation members it
 * does not know (a loose `ToolAnnotations` schema): no tap is needed then.
 */
function observeMessages(transport: Transport, observer: MessageObserver): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    observer.sent(message);
    return send(message, options);
  };
  const previous = transport.onmessage;
  transport.onmessage = (message, extra) => {
    observer.received(message);
    previous?.(message, extra);
  };
}

/** Taps `transport` (before `client` connects over it) to keep what its `tools/list` answers say. */
export function tapListedAnnotations(client: Client, transport: Transport): void {
  const listed = new ListedAnnotations();
  listings.set(client, listed);
  observeMessages(transport, listed);
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
