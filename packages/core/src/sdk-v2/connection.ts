/** What the v2 adapter learns of an McpServer instance's link: its connection, and the method being dispatched. */
import type { McpServer } from '@modelcontextprotocol/server';
import { closingChannel } from '../pipeline/server-adapter.js';
import type { ConnectionChannel } from '../contract/types.js';

/** The low-level server under an McpServer (named by position: the class itself is marked for advanced use only). */
type Server = McpServer['server'];

/** What `trackConnection` learns about the instance's link. */
export interface ConnectionView {
  /** The connection, once `connect` ran. */
  current(): ConnectionChannel | undefined;
  /** The method of the request being dispatched right now, synchronously (see `serveMethods`). */
  dispatching(): string | undefined;
}

/**
 * Gives each connection of this instance a channel for notifications tied to
 * no request and a signal aborted when it closes. It also notes the method
 * of each inbound request while the SDK dispatches it: the SDK looks its
 * handler up synchronously inside the transport's `onmessage`.
 */
export function trackConnection(inner: Server): ConnectionView {
  let current: ConnectionChannel | undefined;
  let dispatching: string | undefined;
  const connect = inner.connect.bind(inner);
  const tracked: typeof inner.connect = async (transport) => {
    current = closingChannel(transport, (method, params) => inner.notification({ method, params }));
    await connect(transport);
    const onmessage = transport.onmessage;
    if (onmessage === undefined) return;
    transport.onmessage = (message, extra) => {
      dispatching = 'method' in message && typeof message.method === 'string' ? message.method : undefined;
      try {
        onmessage.call(transport, message, extra);
      } finally {
        dispatching = undefined;
      }
    };
  };
  Object.defineProperty(inner, 'connect', { value: tracked, configurable: true, writable: true });
  return { current: () => current, dispatching: () => dispatching };
}
