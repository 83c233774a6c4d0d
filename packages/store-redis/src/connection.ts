/** The node-redis connection: how it is opened (and given up on at startup), and how it is closed. */
import { createClient } from 'redis';
import { withDeadline } from './redis-faults.js';
import type { ResolvedOptions } from './options.js';

export type RedisClient = ReturnType<typeof newClient>;

// Named so the client's type is what this call returns: `createClient`'s own generics do not narrow.
function newClient(
  url: string,
  socket: { connectTimeout: number; reconnectStrategy: (retries: number, cause: Error) => number | Error },
) {
  // A command issued while the connection is down fails at once (and one still unsent when it drops is
  // rejected), so none waits in node-redis's offline queue to run late after a reconnection. The store's
  // own deadline, not a per-command timer, bounds the wait: such a timer counts this process's
  // event-loop backlog too, and under a burst it would refuse commands a healthy Redis was about to answer.
  return createClient({ url, socket, disableOfflineQueue: true });
}

/** A connected client; rejects when Redis cannot be reached within `connectTimeoutMs`. */
export async function connect(options: ResolvedOptions): Promise<RedisClient> {
  const { url, connectTimeoutMs, logger } = options;
  const startedAt = Date.now();
  let connected = false;
  const client = newClient(url, {
    connectTimeout: connectTimeoutMs,
    // Before the first connection, give up on time so startup fails loudly;
    // afterwards keep reconnecting with a capped backoff (calls fail fast meanwhile).
    reconnectStrategy: (retries, cause) => {
      const backoff = Math.min(50 * 2 ** Math.min(retries, 6), 2000);
      if (connected) return backoff;
      const remaining = connectTimeoutMs - (Date.now() - startedAt);
      if (remaining <= 0)
        return new Error(`RedisStore: cannot reach Redis within ${connectTimeoutMs} ms: ${cause.message}`);
      return Math.min(backoff, remaining);
    },
  });
  // Without an 'error' listener node-redis would crash the process on a dropped connection.
  // Debug only: one line per reconnection attempt would bury the store's one line per outage.
  client.on('error', (error: unknown) => {
    logger.debug?.('RedisStore: connection error', { error: String(error) });
  });
  client.on('ready', () => {
    connected = true;
  });
  await client.connect();
  return client;
}

/** Closes `client` gracefully within `timeoutMs`, else drops it: a frozen server never sends the pending replies. */
export async function closeClient(client: RedisClient, timeoutMs: number): Promise<void> {
  try {
    await withDeadline(client.close(), timeoutMs);
  } catch {
    client.destroy();
  }
}
