/**
 * The in-process suites alone (1, the `tools/call` round trips, and 2, the
 * pipeline with and without idempotency), on the memory and SQLite stores,
 * written as JSON rows to the file named by the first argument.
 * `bench:compare` runs this entry in two checkouts, turn by turn.
 * It imports nothing but the suites, so an older checkout can build it too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type Store } from '@ext/core';
import { createSqliteStore } from '@ext/store-sqlite';
import type { RunOptions } from './measure.js';
import { runMiddleware } from './middleware.js';
import { runRoundTrips, SCENARIO_LABELS } from './round-trip.js';

/**
 * One measured case: a name stable across checkouts, its median in
 * milliseconds, the case of the same process it adds to (the bare SDK of its
 * line, the pipeline with no extension), and whether it is the SDK alone, the
 * same code in both checkouts (`compare.ts` reads these).
 */
interface InProcessRow {
  readonly name: string;
  readonly medianMs: number;
  readonly baseline?: string;
  readonly sdkOnly?: true;
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (out === undefined) throw new Error('usage: in-process-main.js <out.json>');
  const quick = ['1', 'true'].includes(process.env.BENCH_QUICK ?? '');
  const options: RunOptions = quick ? { timeMs: 300, warmupMs: 100 } : { timeMs: 1500, warmupMs: 300 };
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-in-process-'));
  let files = 0;
  const sqlite = (): Store => createSqliteStore({ path: join(dir, `store-${String(++files)}.db`) });
  const quiet = (): void => undefined;
  try {
    const rows: InProcessRow[] = [];
    for (const group of await runRoundTrips(['v1', 'v2-legacy', 'v2-modern'], { sqlite }, options, quiet)) {
      const name = (scenario: keyof typeof SCENARIO_LABELS) => `1 · ${group.line} · ${SCENARIO_LABELS[scenario]}`;
      for (const row of group.rows) {
        const against = row.scenario === 'bare' ? { sdkOnly: true as const } : { baseline: name('bare') };
        rows.push({ name: name(row.scenario), medianMs: row.measurement.medianMs, ...against });
      }
    }
    const stores = [
      { name: 'memory', create: (): Store => new MemoryStore() },
      { name: 'SQLite', create: sqlite },
    ];
    const middleware = await runMiddleware(stores, options, quiet);
    const name = (row: { label: string; store: string }) => `2 · ${row.label} · ${row.store}`;
    for (const row of middleware.rows) {
      const own = row === middleware.baseline || row === middleware.telemetry.off;
      const against = own ? {} : { baseline: name(middleware.baseline) };
      rows.push({ name: name(row), medianMs: row.measurement.medianMs, ...against });
    }
    writeFileSync(out, JSON.stringify(rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
