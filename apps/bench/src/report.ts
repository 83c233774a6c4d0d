/**
 * The whole of BENCHMARKS.md: the environment, the targets, sections 1 to 3
 * (round trips, pipeline overhead, stores) and the sections other benchmark
 * modules write, and the foreign sections carried over from the previous file.
 */
import {
  formatDuration,
  formatOverhead,
  formatRate,
  markdownTable,
  verdict,
  type Align,
  type BenchSection,
} from './markdown.js';
import type { Measurement } from './measure.js';
import type { MiddlewareResult } from './middleware.js';
import { LINE_LABELS, SCENARIO_LABELS, type Line, type RoundTripGroup } from './round-trip.js';
import type { StoreRow } from './stores.js';

/** Where and how the numbers were taken. */
export interface Environment {
  /** ISO 8601. */
  readonly date: string;
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly os: string;
  readonly sdks: string;
  readonly quick: boolean;
  readonly timeMs: number;
  readonly warmupMs: number;
  /** Where the Redis store ran, or `undefined` when `REDIS_URL` was unset. */
  readonly redis: string | undefined;
  /** The command that produced the report. */
  readonly command: string;
  /** Load averages (1, 5, 15 min) when the run started and ended: other work on the machine. */
  readonly load: string;
}

export interface Report {
  readonly environment: Environment;
  readonly roundTrips: readonly RoundTripGroup[];
  readonly middleware: MiddlewareResult;
  readonly stores: readonly StoreRow[];
  readonly inFlight: number;
  /** The idempotency budget per call on the SQLite store, in milliseconds. */
  readonly targetMs: number;
  /** What telemetry may add per pipeline call with no OpenTelemetry SDK registered, in milliseconds. */
  readonly telemetryTargetMs: number;
  /** Name of the SQLite row in the middleware suite. */
  readonly sqliteStore: string;
  /** Further sections, numbered after the three above, in this order. */
  readonly sections: readonly BenchSection[];
}

const LATENCY: readonly Align[] = ['left', 'right', 'right', 'right', 'right'];

function latencyCells(measurement: Measurement): string[] {
  return [formatDuration(measurement.medianMs), formatDuration(measurement.p99Ms), formatRate(measurement.opsPerSec)];
}

function environmentSection(env: Environment): string {
  const run = env.quick ? 'quick' : 'full';
  return markdownTable(
    ['', ''],
    [
      ['date', env.date],
      ['command', `\`${env.command}\``],
      ['Node', env.node],
      ['CPU', `${env.cpu} (${String(env.cores)} logical cores)`],
      ['OS', env.os],
      ['SDKs', env.sdks],
      [
        'run',
        `${run}: each case measured for ${formatDuration(env.timeMs)} after ${formatDuration(env.warmupMs)} of warm-up`,
      ],
      ['Redis', env.redis ?? 'not measured (`REDIS_URL` unset)'],
      ['load average', env.load],
    ],
  );
}

function roundTripSection(groups: readonly RoundTripGroup[]): string {
  const parts: string[] = [];
  for (const group of groups) {
    const baseline = group.rows.find((row) => row.scenario === 'bare')?.measurement;
    const rows = group.rows.map((row) => [
      SCENARIO_LABELS[row.scenario],
      ...latencyCells(row.measurement),
      baseline === undefined || row.scenario === 'bare'
        ? 'baseline'
        : formatOverhead(row.measurement.medianMs - baseline.medianMs, baseline.medianMs),
    ]);
    parts.push(
      `### ${LINE_LABELS[group.line]}\n\n${markdownTable(['stack', 'median', 'p99', 'ops/s', 'overhead vs (a), median'], rows, LATENCY)}`,
    );
  }
  return parts.join('\n\n');
}

const SHORT_LINE_LABELS: Readonly<Record<Line, string>> = {
  v1: 'SDK v1',
  'v2-legacy': 'SDK v2 (2025-11-25)',
  'v2-modern': 'SDK v2 (2026-07-28, HTTP)',
};

function medianOf(group: RoundTripGroup, scenario: string): number | undefined {
  return group.rows.find((row) => row.scenario === scenario)?.measurement.medianMs;
}

function middlewareSection(report: Report): string {
  const { baseline, rows } = report.middleware;
  const table = markdownTable(
    ['pipeline', 'store', 'median', 'p99', 'ops/s', 'vs no extension, median'],
    rows.map((row) => [
      row.label,
      row.idempotent ? row.store : '-',
      ...latencyCells(row.measurement),
      // A share of a microsecond-sized baseline says nothing: absolute only.
      row === baseline ? 'baseline' : formatOverhead(row.measurement.medianMs - baseline.measurement.medianMs),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right'],
  );
  const sqlite = rows.find((row) => row.idempotent && row.store === report.sqliteStore);
  const extra = sqlite === undefined ? Number.NaN : sqlite.measurement.medianMs - baseline.measurement.medianMs;
  const endToEnd = report.roundTrips.flatMap((group) => {
    const keyed = medianOf(group, 'stack-key-sqlite');
    const unkeyed = medianOf(group, 'stack');
    return keyed === undefined || unkeyed === undefined
      ? []
      : [`${SHORT_LINE_LABELS[group.line]} ${formatOverhead(keyed - unkeyed)}`];
  });
  const target = formatDuration(report.targetMs);
  const outcome = verdict(extra, report.targetMs);
  const statement = Number.isFinite(extra)
    ? `**Target ${outcome}: the idempotency layer on the SQLite store adds ${formatDuration(extra)} median per call in process ` +
      `(target: under ${target}).**`
    : `**Target not measured: no SQLite row (target: under ${target} median per call in process).**`;
  const lines = [table, '', statement, '', telemetryStatement(report)];
  if (endToEnd.length > 0) {
    lines.push(
      '',
      `End to end, the same key on SQLite costs, row (e) minus row (c) of section 1: ${endToEnd.join('; ')}. ` +
        'That difference also holds the client half minting the key and the larger result `_meta`.',
    );
  }
  return lines.join('\n');
}

/** What the core's telemetry adds per call with `@opentelemetry/api` installed and no SDK registered: on minus off. */
function telemetryCost(report: Report): number {
  const { on, off } = report.middleware.telemetry;
  return on.measurement.medianMs - off.measurement.medianMs;
}

function telemetryStatement(report: Report): string {
  const { on, off } = report.middleware.telemetry;
  const cost = telemetryCost(report);
  return (
    `**Target ${verdict(cost, report.telemetryTargetMs)}: with \`@opentelemetry/api\` installed and no SDK registered, the core's telemetry ` +
    `adds ${formatOverhead(cost)} median per call (${formatDuration(on.measurement.medianMs)} on, ${formatDuration(off.measurement.medianMs)} ` +
    `with \`telemetry: false\`; target: under ${formatDuration(report.telemetryTargetMs)}).**`
  );
}

function storeSection(rows: readonly StoreRow[], inFlight: number): string {
  const n = String(inFlight);
  return markdownTable(
    [
      'store',
      'operation',
      'median',
      'p99',
      'ops/s, 1 caller',
      `ops/s, ${n} in flight`,
      `median, ${n} in flight`,
      `p99, ${n} in flight`,
    ],
    rows.map((row) => [
      row.store,
      `\`${row.op}\``,
      ...latencyCells(row.sequential),
      formatRate(row.concurrent.opsPerSec),
      formatDuration(row.concurrent.medianMs),
      formatDuration(row.concurrent.p99Ms),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

/** Every target of the run in one table, with the section that states it. */
function targetsSection(report: Report): string {
  const rows: string[][] = [];
  const sqlite = report.middleware.rows.find((row) => row.idempotent && row.store === report.sqliteStore);
  const extra =
    sqlite === undefined ? Number.NaN : sqlite.measurement.medianMs - report.middleware.baseline.measurement.medianMs;
  rows.push([
    '2',
    `idempotency on SQLite adds under ${formatDuration(report.targetMs)} median per call in process`,
    Number.isFinite(extra) ? formatOverhead(extra) : 'not measured',
    verdict(extra, report.targetMs),
  ]);
  const telemetry = telemetryCost(report);
  rows.push([
    '2',
    `OpenTelemetry with no SDK registered adds under ${formatDuration(report.telemetryTargetMs)} median per pipeline call`,
    formatOverhead(telemetry),
    verdict(telemetry, report.telemetryTargetMs),
  ]);
  report.sections.forEach((section, index) => {
    for (const target of section.targets)
      rows.push([String(index + FIRST_EXTRA_SECTION), target.name, target.detail, target.met ? 'met' : 'not met']);
  });
  return markdownTable(['section', 'target', 'measured', 'outcome'], rows, ['right', 'left', 'right', 'left']);
}

/** Sections 1 to 3 are fixed; the others follow. */
const FIRST_EXTRA_SECTION = 4;

function extraSections(sections: readonly BenchSection[]): string {
  return sections
    .map(
      (section, index) => `## ${String(index + FIRST_EXTRA_SECTION)}. ${section.title}\n\n${section.markdown.trim()}\n`,
    )
    .join('\n');
}

/** The whole of BENCHMARKS.md. */
export function renderReport(report: Report): string {
  const n = String(report.inFlight);
  return `# Benchmarks

Written by \`pnpm bench\` (the private package \`apps/bench\`); run it again to
refresh these numbers, \`BENCH_QUICK=1 pnpm bench\` for a shorter run. Do not
edit this file by hand.

${environmentSection(report.environment)}

## Targets

${targetsSection(report)}

## How to read this

Everything runs on one machine, in one run. Sections 1 to 3 and the
in-process rows of the full-stack section run in one Node process with no
network; the other rows use real sockets on 127.0.0.1 (the full-stack HTTP
server, the two transfer servers, the gateways and their upstream in child
processes, the multimodal server in this process). Each latency case repeats one operation, awaited, for a fixed time
after a warm-up, and starts after a full garbage collection so that no case
pays for another's allocations. **median** is the typical latency of one
operation; **p99**
is the latency 99 % of operations stay under (garbage collection and timers
show up there); **ops/s** is what a single caller completes per second
(1 / mean latency). Overhead columns subtract the median of the group's
baseline row, measured in the same run. Compare rows with each other, not
with another machine or another run: absolute numbers move with the CPU, its
frequency scaling and whatever else is running. The SQLite store is a
temporary file in WAL mode, so its rows include real writes to disk.

## 1. \`tools/call\` round trip: composed stack vs bare SDK

A trivial tool (\`echo\`, one zod string argument) called through a real
client and server linked in process. (b) puts the core's adapters on both
sides with nothing composed; (c) composes \`errorsServer()\`,
\`idempotencyServer()\` and \`transactionsServer()\` with their client halves,
negotiated, and the call carries no idempotency key, so the layers pass it
through; in (d) and (e) the idempotency client mints a fresh key for every
call, so every call claims the key, runs the tool and records its result.

${roundTripSection(report.roundTrips)}

## 2. Idempotency and telemetry overhead in the pipeline

\`composed.runToolCall(call, ctx, handler)\` called directly (core's
\`composeServer\`, \`createRequestContext\`, \`createCallContext\`), with what
an adapter builds per request: the negotiation against the client's
advertised extensions and both contexts. No transport, no SDK. A fresh key per
call is the expensive path: read the record, count the caller's budget, claim
the key, run the tool, store the result. (The per-caller record budget,
\`maxKeysPerPrincipal\`, is raised here and in section 1 so that the many keys
of one run are not refused.) \`@opentelemetry/api\` is installed and no
OpenTelemetry SDK is registered, as in an application that has not turned
tracing on: every row runs with the core's telemetry on (the default) except
the one composed with \`telemetry: false\`; those two are the best of
${String(report.middleware.telemetryRounds)} alternating rounds each.

${middlewareSection(report)}

## 3. Store throughput

\`setIfAbsent\` of a new key, \`get\` of an existing key and \`increment\` of
one counter, each with a TTL, as the idempotency layer uses them. "1 caller"
awaits each operation before the next; "${n} in flight" keeps ${n} operations
outstanding, so its latency includes waiting behind the others. The SQLite
store is synchronous underneath (better-sqlite3), so concurrency cannot add
throughput there; Redis pipelines the outstanding commands on one connection.

${storeSection(report.stores, report.inFlight)}
${report.sections.length === 0 ? '' : `\n${extraSections(report.sections)}`}`;
}

const KEPT_SECTION = /<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g;

/**
 * BENCHMARKS.md is shared: other checks (package sizes) write their own
 * sections between `<!-- name:start -->` and `<!-- name:end -->` markers.
 * This carries those sections of the previous file over to the new report.
 */
export function keepForeignSections(previous: string, report: string): string {
  const kept = [...previous.matchAll(KEPT_SECTION)]
    .map((match) => match[0])
    .filter((section) => !report.includes(section));
  return kept.length === 0 ? report : `${report.trimEnd()}\n\n${kept.join('\n\n')}\n`;
}
