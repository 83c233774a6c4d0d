/**
 * The upstream side of a reload: the pool the new config needs, made of the
 * connections it keeps and new ones for upstreams added or changed; and the
 * graceful end of the connections it no longer needs, once the calls under
 * way on them are done.
 */
import type { Logger } from '@ext/core';
import type { Upstream } from '../config/schema.js';
import { UpstreamPool, type ConnectUpstreamOptions, type UpstreamConnection } from '../upstream/index.js';
import type { ReloadPlan } from './plan.js';

/** How long a replaced connection waits for its calls under way before it is closed anyway. */
export const RETIRE_GRACE_MS = 30_000;

export interface ReloadedUpstreams {
  readonly pool: UpstreamPool;
  /** Closes the connections made for the reload: it did not go ahead. */
  discard(): Promise<void>;
}

/** Connects the upstreams `plan` adds or changes, and pools them with the ones it keeps, in config order. */
export async function upstreamsAfterReload(
  previous: UpstreamPool,
  upstreams: Readonly<Record<string, Upstream>>,
  plan: ReloadPlan,
  options: ConnectUpstreamOptions,
): Promise<ReloadedUpstreams> {
  const started = [...plan.added, ...plan.changed];
  const fresh = await UpstreamPool.connect(
    Object.fromEntries(started.map((name) => [name, upstreams[name] as Upstream])),
    options,
  );
  const connections: Record<string, UpstreamConnection> = {};
  for (const name of Object.keys(upstreams)) {
    const connection = plan.kept.includes(name) ? previous.connection(name) : fresh.connection(name);
    if (connection !== undefined) connections[name] = connection;
  }
  return { pool: new UpstreamPool(connections), discard: () => fresh.close() };
}

/** Closes `connections` once their calls under way settle, or after `RETIRE_GRACE_MS` whatever they do. */
export function retireConnections(
  connections: readonly UpstreamConnection[],
  inFlight: ReadonlyMap<object, ReadonlySet<Promise<unknown>>>,
  logger: Logger,
  graceMs: number = RETIRE_GRACE_MS,
): Promise<void> {
  const retiring = connections.map(async (connection) => {
    const calls = [...(inFlight.get(connection) ?? [])];
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled(calls), grace]);
    clearTimeout(timer);
    await connection.close().catch((error: unknown) => {
      logger.warn(`gateway: upstream ${connection.name} replaced by a reload did not close cleanly`, { error });
    });
  });
  return Promise.all(retiring).then(() => undefined);
}
