/**
 * `pnpm bench`: runs every benchmark suite on this machine and writes
 * BENCHMARKS.md at the repository root (`BENCH_QUICK=1` for a shorter run).
 */
import { setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, type Store } from '@ext/core';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import { benchContention, CONTENTION_CALLS, CONTENTION_TIMEOUTS, contentionMarkdown } from './contention.js';
import { benchDataReferences } from './data-references.js';
import { benchEvents, eventsBenchCases, renderEvents } from './events.js';
import { runFullStack } from './full-stack.js';
import { renderFullStack } from './full-stack-report.js';
import { gatewayBenchOptions, runGateway } from './gateway.js';
import { renderGateway } from './gateway-report.js';
import { contextForgeStep } from './gateway-contextforge.js';
import { withMarkedSection, type BenchSection } from './markdown.js';
import type { RunOptions } from './measure.js';
import { runMiddleware } from './middleware.js';
import { benchMultimodal } from './multimodal.js';
import { keepForeignSections, renderReport, type Environment } from './report.js';
import { runRoundTrips } from './round-trip.js';
import { LAYERS } from './stack.js';
import { runStores, type NamedStore } from './stores.js';

const IN_FLIGHT = 64;
/** Calls in flight on one client in the full-stack HTTP cases. */
const HTTP_CONCURRENCY = [1, 16];
const TARGET_MS = 0.2;
/** What the core's telemetry may add per pipeline call when no OpenTelemetry SDK is registered: 1 µs. */
const TELEMETRY_TARGET_MS = 0.001;
const REPORT = fileURLToPath(new URL('../../../BENCHMARKS.md', import.meta.url));

/**
 * Opens the stores the suites use. The suites close what they open; this
 * closes whatever a failed run left open (closing twice is harmless) and
 * removes the temp directory of the SQLite files.
 */
class Stores {
  readonly #opened: Store[] = [];
  readonly #dir = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-'));
  #files = 0;

  #track<S extends Store>(store: S): S {
    this.#opened.push(store);
    return store;
  }

  // Not tracked: a closed memory store must be free for the garbage collector.
  memory = (): Store => new MemoryStore();

  sqlite = (): Store => this.#track(createSqliteStore({ path: join(this.#dir, `store-${String(++this.#files)}.db`) }));

  redis = async (url: string): Promise<Store> =>
    // A fresh prefix per store keeps runs apart; every key has a TTL, so Redis forgets them.
    this.#track(await createRedisStore({ url, keyPrefix: `mcp-ext-bench:${crypto.randomUUID()}:` }));

  async close(): Promise<void> {
    await Promise.all(this.#opened.map((store) => store.close()));
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

/** `redis://user:secret@host:6390/0` → `redis://host:6390`: never print credentials. */
function redisLocation(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

function sdkVersions(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/client']
    .map((name) => `${name} ${manifest.dependencies[name] ?? '?'}`)
    .join(', ');
}

async function main(): Promise<void> {
  // The SDK's HTTP client transport hands one long-lived abort signal to every
  // fetch, and undici lets go of each listener only when its Request is
  // collected: thousands of calls trip Node's leak warning, bare SDK or not.
  setMaxListeners(0);
  const quick = process.argv.includes('--quick') || ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
  const options: RunOptions = quick ? { timeMs: 300, warmupMs: 100 } : { timeMs: 1500, warmupMs: 300 };
  const redisUrl = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
  const progress = (text: string): void => {
    console.log(text);
  };
  const stores = new Stores();
  const startedAt = Date.now();
  try {
    const loadAtStart = loadAverage();
    const redis = redisUrl === undefined ? undefined : redisLocation(redisUrl);
    const environment = (): Environment => ({
      date: new Date(startedAt).toISOString(),
      command: `${quick ? 'BENCH_QUICK=1 ' : ''}${redis === undefined ? '' : `REDIS_URL=${redis} `}pnpm bench`,
      load: `${loadAtStart} at the start, ${loadAverage()} at the end (${String(cpus().length)} cores)`,
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      os: `${type()} ${release()} ${process.arch}`,
      sdks: sdkVersions(),
      quick,
      timeMs: options.timeMs,
      warmupMs: options.warmupMs,
      redis,
    });
    const named: NamedStore[] = [
      { name: 'memory', create: stores.memory },
      { name: 'SQLite', create: stores.sqlite },
    ];
    if (redisUrl !== undefined) named.push({ name: 'Redis', create: () => stores.redis(redisUrl) });
    else progress('REDIS_URL is unset: the Redis store and the two-instance event fan-out are not measured');

    const roundTrips = await runRoundTrips(
      ['v1', 'v2-legacy', 'v2-modern'],
      { sqlite: stores.sqlite },
      options,
      progress,
    );
    const middleware = await runMiddleware(named, options, progress);
    const storeRows = await runStores(named, IN_FLIGHT, options, progress);
    const sections: BenchSection[] = [];
    const fullStack = await runFullStack({ run: options, quick, concurrency: HTTP_CONCURRENCY, progress });
    sections.push(
      renderFullStack(
        fullStack,
        LAYERS.map((layer) => layer.name),
      ),
    );
    sections.push(await benchDataReferences({ quick, progress }));
    sections.push(await benchMultimodal({ quick, progress }));
    const eventRows = await benchEvents(
      eventsBenchCases(redisUrl),
      { subscribers: 100, events: quick ? 200 : 1000 },
      progress,
    );
    sections.push(renderEvents(eventRows, redis));
    const gatewayOptions = gatewayBenchOptions(options, quick, HTTP_CONCURRENCY, progress, {
      contextForge: contextForgeStep(process.env, progress),
    });
    sections.push(renderGateway(await runGateway(gatewayOptions)));
    const contention = await benchContention({
      redisUrl,
      calls: CONTENTION_CALLS,
      commandTimeouts: CONTENTION_TIMEOUTS,
      progress,
    });
    const report = renderReport({
      environment: environment(),
      roundTrips,
      middleware,
      stores: storeRows,
      inFlight: IN_FLIGHT,
      targetMs: TARGET_MS,
      telemetryTargetMs: TELEMETRY_TARGET_MS,
      sqliteStore: 'SQLite',
      sections,
    });
    const machine = `${environment().cpu} (${String(cpus().length)} logical cores), Node ${process.version}, ${environment().os}`;
    const written = keepForeignSections(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '', report);
    const withContention = withMarkedSection(
      written,
      'contention',
      contentionMarkdown(contention, CONTENTION_CALLS, machine, new Date(startedAt).toISOString().slice(0, 10)),
    );
    writeFileSync(REPORT, withContention);
    progress(`\nwrote ${REPORT} in ${String(Math.round((Date.now() - startedAt) / 1000))} s`);
  } finally {
    await stores.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
