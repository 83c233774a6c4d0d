/** What the v2 adapter learns of an McpServer instance's link: its connection, and the method being dispatched. */
import { closingChannel } from '../pipeline/server-adapter.js';
import type { ConnectionChannel } from '../contract/types.js';
import { hookConnect, observeDispatch, type Server } from './sdk-patches.js';

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
 * of each inbound request while the SDK dispatches it.
 */
export function trackConnection(inner: Server): ConnectionView {
  let current: ConnectionChannel | undefined;
  let dispatching: string | undefined;
  hookConnect(inner, {
    connecting: (transport) => {
      current = closingChannel(transport, (method, params) => inner.notification({ method, params }));
    },
    connected: (transport) => {
      observeDispatch(transport, (method) => {
        dispatching = method;
      });
    },
  });
  return { current: () => current, dispatching: () => dispatching };
}
