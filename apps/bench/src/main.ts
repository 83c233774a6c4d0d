import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, type Store } from '@ext/core';
import { createRedisStore } from '@ext/store-redis';
import { createSqliteStore } from '@ext/store-sqlite';
import type { RunOptions } from './measure.js';
import { runMiddleware } from './middleware.js';
import { keepForeignSections, renderReport, type Environment } from './report.js';
import { runRoundTrips } from './round-trip.js';
import { runStores, type NamedStore } from './stores.js';

const IN_FLIGHT = 64;
const TARGET_MS = 0.2;
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
  const quick = process.argv.includes('--quick') || ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
  const options: RunOptions = quick ? { timeMs: 300, warmupMs: 100 } : { timeMs: 1500, warmupMs: 300 };
  const redisUrl = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;
  const progress = (text: string): void => {
    console.log(text);
  };
  const stores = new Stores();
  const startedAt = Date.now();
  try {
    const environment: Environment = {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      os: `${type()} ${release()} ${process.arch}`,
      sdks: sdkVersions(),
      quick,
      timeMs: options.timeMs,
      warmupMs: options.warmupMs,
      redis: redisUrl === undefined ? undefined : redisLocation(redisUrl),
    };
    const named: NamedStore[] = [
      { name: 'memory', create: stores.memory },
      { name: 'SQLite', create: stores.sqlite },
    ];
    if (redisUrl !== undefined) named.push({ name: 'Redis', create: () => stores.redis(redisUrl) });
    else progress('REDIS_URL is unset: the Redis store is not measured');

    const roundTrips = await runRoundTrips(['v1', 'v2-legacy', 'v2-modern'], { sqlite: stores.sqlite }, options, progress);
    const middleware = await runMiddleware(named, options, progress);
    const storeRows = await runStores(named, IN_FLIGHT, options, progress);
    const report = renderReport({
      environment,
      roundTrips,
      middleware,
      stores: storeRows,
      inFlight: IN_FLIGHT,
      targetMs: TARGET_MS,
      sqliteStore: 'SQLite',
    });
    writeFileSync(REPORT, keepForeignSections(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '', report));
    progress(`\nwrote ${REPORT} in ${String(Math.round((Date.now() - startedAt) / 1000))} s`);
  } finally {
    await stores.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
