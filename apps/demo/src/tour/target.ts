/** Where the tour's clients connect, on which protocol era, and what a client advertised on the wire. */
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { connect, type Connection, type ConnectOptions, type Era, type Target } from '../client/connect.js';
import { dig } from './explain.js';
import type { DemoUser } from '../server/users.js';

/** Where the tour's clients connect, and on which protocol era (v1 speaks only the legacy one). */
export interface TourTarget {
  readonly target: Target;
  readonly era: Era;
  readonly sdk: 'v1' | 'v2';
  /** The second demo server, which imports the tracker's exports by reference. */
  readonly sheets: URL;
  /** The tracker's server card, when it runs on HTTP. */
  readonly cardUrl?: URL | undefined;
  /** Where each demo user connects, when the server authenticates its callers (HTTP). */
  readonly as?: ((user: DemoUser) => Target) | undefined;
}

export function open(tour: TourTarget, options: Omit<ConnectOptions, 'era'>): Promise<Connection> {
  return connect(tour.target, { ...options, era: tour.era });
}

/** What a client advertised in `capabilities.extensions`, read off the wire. */
export function advertised(connection: Connection, era: Era): unknown {
  if (era === 'legacy')
    return dig(connection.wire.exchange('initialize')?.request.params, 'capabilities', 'extensions');
  return dig(
    connection.wire.exchange('server/discover')?.request.params,
    '_meta',
    CLIENT_CAPABILITIES_META_KEY,
    'extensions',
  );
}
