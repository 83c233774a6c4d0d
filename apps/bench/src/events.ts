/** The events benchmark: fan-out of published events to many subscribers, in one process and across two sharing Redis. */
import { performance } from 'node:perf_hooks';
import { composeServer, MemoryStore, type ExtendedClient, type Store } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { extendClient, extendServer } from '@ext/core/sdk-v1';
import { subscribeEvents, eventsClient, type EventSubscription } from '@ext/events/client';
import { eventsServer, type EventsServerExtension } from '@ext/events/server';
import { createRedisStore } from '@ext/store-redis';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { formatDuration, formatRate, markdownTable, type BenchSection, type BenchTarget } from './markdown.js';
import { quantile } from './measure.js';

/** How subscribers are attached. */
export type EventsSetup = 'watch' | 'mcp';

export const EVENTS_SETUP_LABELS: Readonly<Record<EventsSetup, string>> = {
  watch: 'in-process `watch()` (no transport)',
  mcp: 'MCP clients (SDK v1, `InMemoryTransport`), pushed as notifications',
};

export interface EventsRow {
  /** Where the subscribers sit relative to the publisher, e.g. "one process, memory". */
  readonly topology: string;
  readonly setup: EventsSetup;
  readonly subscribers: number;
  readonly events: number;
  /** Events published per second while every subscriber kept up (publish of the first to receipt of the last by all). */
  readonly eventsPerSec: number;
  /** Notifications handed to subscribers per second (`eventsPerSec` × subscribers). */
  readonly deliveriesPerSec: number;
  /** Publish-to-receipt latency over every delivery, in milliseconds. */
  readonly medianMs: number;
  readonly p99Ms: number;
}

export interface EventsBenchCase {
  readonly topology: string;
  /** Opens the publishing instance's store and the subscribers' instance's store (the same store for one process). */
  readonly open: () => Promise<{ publisher: Store; subscriber: Store; close: () => Promise<void> }>;
}

export interface EventsBenchOptions {
  /** Default 100. */
  readonly subscribers?: number | undefined;
  /** Events published per case. Default 500. */
  readonly events?: number | undefined;
  readonly setups?: readonly EventsSetup[] | undefined;
  /** Gives up on a case after this long. Default 120000. */
  readonly timeoutMs?: number | undefined;
}

// Plain JSON Schema: the extension compiles it as it would a TypeBox schema.
const BENCH_EVENTS = {
  order_placed: {
    description: 'An order was placed',
    payload: {
      type: 'object',
      required: ['seq', 'region', 'total'],
      properties: { seq: { type: 'integer' }, region: { type: 'string' }, total: { type: 'number' } },
    },
    filter: { type: 'object', properties: { region: { type: 'string' } }, additionalProperties: false },
  },
};

type BenchEvents = typeof BENCH_EVENTS;

function extension(): EventsServerExtension<BenchEvents> {
  // A short wake interval is not needed: pub/sub wakes deliveries; the timer is only a safety net.
  return eventsServer({ events: BENCH_EVENTS, logger: silentLogger, retainSeconds: 600 });
}

/** One connected MCP client per subscriber, each on its own server instance of one composition. */
async function mcpSubscribers(
  events: EventsServerExtension<BenchEvents>,
  store: Store,
  count: number,
  onEvent: (index: number, seq: number) => void,
): Promise<() => Promise<void>> {
  const composed = composeServer([events], { logger: silentLogger });
  const closers: (() => Promise<void>)[] = [];
  const subscriptions: EventSubscription[] = [];
  for (let index = 0; index < count; index++) {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: 'bench-events', version: '0.0.0' });
    extendServer(server, composed, { store, logger: silentLogger });
    const sdkClient = new Client({ name: 'bench-subscriber', version: '0.0.0' });
    const client: ExtendedClient = extendClient(sdkClient, [eventsClient()], { logger: silentLogger });
    await server.connect(serverTransport);
    await sdkClient.connect(clientTransport);
    const subscription = await subscribeEvents(client, {
      events: ['order_placed'],
      onEvent: (event) => {
        onEvent(index, event.payload?.seq as number);
      },
    });
    if (subscription === undefined) throw new Error('events bench: the extension was not negotiated');
    subscriptions.push(subscription);
    closers.push(async () => {
      await sdkClient.close();
      await server.close();
    });
  }
  return async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await Promise.all(closers.map((close) => close()));
  };
}

async function watchSubscribers(
  events: EventsServerExtension<BenchEvents>,
  store: Store,
  count: number,
  onEvent: (index: number, seq: number) => void,
): Promise<() => Promise<void>> {
  const watches = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      events.watch(store, { events: ['order_placed'] }, (event) => {
        onEvent(index, event.payload?.seq as number);
      }),
    ),
  );
  return async () => {
    await Promise.all(watches.map((watch) => watch.stop()));
  };
}

async function runCase(
  benchCase: EventsBenchCase,
  setup: EventsSetup,
  subscribers: number,
  total: number,
  timeoutMs: number,
): Promise<EventsRow> {
  const stores = await benchCase.open();
  // Two extension instances when the stores differ: two server processes sharing a Redis.
  const publisher = extension();
  const receiver = stores.publisher === stores.subscriber ? publisher : extension();
  const publishedAt = new Float64Array(total + 1);
  const latencies: number[] = [];
  const received = new Int32Array(subscribers);
  let outstanding = subscribers * total;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const onEvent = (index: number, seq: number): void => {
    latencies.push(performance.now() - (publishedAt[seq] ?? 0));
    const expected = (received[index] ?? 0) + 1;
    if (seq !== expected)
      throw new Error(
        `events bench: subscriber ${String(index)} got event ${String(seq)}, expected ${String(expected)}`,
      );
    received[index] = expected;
    outstanding -= 1;
    if (outstanding === 0) finished();
  };
  const attach = setup === 'mcp' ? mcpSubscribers : watchSubscribers;
  const detach = await attach(receiver, stores.subscriber, subscribers, onEvent);
  try {
    const started = performance.now();
    for (let seq = 1; seq <= total; seq++) {
      publishedAt[seq] = performance.now();
      await publisher.publish(stores.publisher, 'order_placed', { seq, region: 'eu', total: seq * 1.5 });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`events bench: ${String(outstanding)} deliveries missing after ${String(timeoutMs)} ms`));
      }, timeoutMs);
    });
    await Promise.race([done, timeout]).finally(() => {
      clearTimeout(timer);
    });
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      topology: benchCase.topology,
      setup,
      subscribers,
      events: total,
      eventsPerSec: total / seconds,
      deliveriesPerSec: (total * subscribers) / seconds,
      medianMs: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    };
  } finally {
    await detach();
    await publisher.stop();
    if (receiver !== publisher) await receiver.stop();
    await stores.close();
  }
}

/**
 * Event fan-out: `events` events published one after another, each
 * delivered to `subscribers` subscribers, for every case (one process on a
 * memory store; two instances sharing a Redis, publisher on one and every
 * subscriber on the other) and every setup. Checks that each subscriber
 * got every event exactly once, in order.
 */
export async function benchEvents(
  cases: readonly EventsBenchCase[],
  options: EventsBenchOptions,
  progress: (text: string) => void,
): Promise<EventsRow[]> {
  const subscribers = options.subscribers ?? 100;
  const total = options.events ?? 500;
  const rows: EventsRow[] = [];
  for (const benchCase of cases) {
    for (const setup of options.setups ?? (['watch', 'mcp'] as const)) {
      const row = await runCase(benchCase, setup, subscribers, total, options.timeoutMs ?? 120_000);
      progress(
        `events ${benchCase.topology.padEnd(28)} ${setup.padEnd(5)} ${Math.round(row.eventsPerSec).toString().padStart(7)} events/s to ${String(subscribers)} subscribers` +
          ` ${Math.round(row.deliveriesPerSec).toString().padStart(8)} deliveries/s, median ${row.medianMs.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms`,
      );
      rows.push(row);
    }
  }
  return rows;
}

/**
 * The standard cases: one process on a `MemoryStore`, and, when `redisUrl`
 * is given, two server instances with their own Redis connections on one
 * key space (a fresh prefix per run; the log expires on its own).
 */
export function eventsBenchCases(redisUrl: string | undefined): EventsBenchCase[] {
  const cases: EventsBenchCase[] = [
    {
      topology: 'one process, memory store',
      open: () => {
        const store = new MemoryStore();
        return Promise.resolve({ publisher: store, subscriber: store, close: () => store.close() });
      },
    },
  ];
  if (redisUrl !== undefined) {
    cases.push({
      topology: 'two instances, one Redis',
      open: async () => {
        const keyPrefix = `mcp-ext-bench:${crypto.randomUUID()}:`;
        const publisher = await createRedisStore({ url: redisUrl, keyPrefix });
        const subscriber = await createRedisStore({ url: redisUrl, keyPrefix });
        return {
          publisher,
          subscriber,
          close: async () => {
            await publisher.close();
            await subscriber.close();
          },
        };
      },
    });
  }
  return cases;
}

/**
 * The section of BENCHMARKS.md for event fan-out. No rate is promised, so
 * the one target is the delivery guarantee each case checks: every
 * subscriber got every event once, in order (a case that misses it throws).
 */
export function renderEvents(rows: readonly EventsRow[], redis: string | undefined): BenchSection {
  const first = rows[0];
  const subscribers = first?.subscribers ?? 0;
  const events = first?.events ?? 0;
  const table = markdownTable(
    ['topology', 'subscribers attached as', 'events/s', 'deliveries/s', 'publish to receipt, median', 'p99'],
    rows.map((row) => [
      row.topology,
      EVENTS_SETUP_LABELS[row.setup],
      formatRate(row.eventsPerSec),
      formatRate(row.deliveriesPerSec),
      formatDuration(row.medianMs),
      formatDuration(row.p99Ms),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right'],
  );
  const targets: BenchTarget[] = [
    {
      name: `every one of ${subscribers.toLocaleString('en-US')} subscribers receives each of ${events.toLocaleString('en-US')} events exactly once, in order, in every case`,
      met: rows.length > 0,
      detail: `${String(rows.length)} cases checked`,
    },
  ];
  const skipped =
    redis === undefined
      ? '\n\nThe two-instance rows are not measured: `REDIS_URL` was unset (run `REDIS_URL=redis://127.0.0.1:6390 pnpm bench`).'
      : '';
  const markdown = `${events.toLocaleString('en-US')} events published one after another by \`@ext/events\` (\`publish\` on
the server extension, payload checked against the event type's schema), each
delivered to ${String(subscribers)} subscribers. **One process**: publisher and subscribers
share one extension instance and a \`MemoryStore\`. **Two instances, one
Redis**: the publisher is one extension instance with its own Redis
connection, every subscriber is on a second instance with another
connection, as two server processes would be; events travel through the
Redis Streams log and its wake-up channel. Subscribers are attached either
directly with the extension's \`watch()\` (the delivery machinery without any
transport) or as real MCP clients (SDK v1, \`InMemoryTransport\`, one server
instance each), subscribed with \`subscribeEvents\` and fed by notifications.
**events/s** is events published over the time from the first publish to
the last delivery to the last subscriber; **deliveries/s** multiplies it by
the subscribers. Each subscriber checks that events arrive once and in order;
the run fails otherwise.

${table}

**Target ${targets[0]?.met === true ? 'met' : 'not met'}: ${targets[0]?.name ?? ''}.** No rate target is set for fan-out.${skipped}`;
  return { title: `Events: fan-out to ${String(subscribers)} subscribers`, markdown, targets };
}
