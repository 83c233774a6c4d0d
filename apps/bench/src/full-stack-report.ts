/** The full-stack section of BENCHMARKS.md: the stack against the bare SDKs, its targets, and each layer's cost. */
import type { FullStackResult, HttpLayerRow, InProcessRow, LayerRow } from './full-stack.js';
import type { HttpEra, InProcessLine } from './full-stack-pairs.js';
import {
  formatBytes,
  formatDuration,
  formatOverhead,
  formatRate,
  markdownTable,
  type BenchSection,
  type BenchTarget,
} from './markdown.js';
import { stackLabel } from './stack.js';

/** Full stack in process: under this many milliseconds added to the bare SDK's median. */
export const IN_PROCESS_TARGET_MS = 0.1;
/** Full stack over HTTP: at least this share of the bare SDK's calls/s. */
export const HTTP_TARGET_SHARE = 0.9;

const IN_PROCESS_LABELS: Readonly<Record<InProcessLine, string>> = {
  v1: 'SDK v1, `InMemoryTransport`',
  v2: 'SDK v2, 2025-11-25 era, `InMemoryTransport`',
};

const ERA_LABELS: Readonly<Record<HttpEra, string>> = {
  legacy: '2025-11-25 (`initialize`, one session)',
  modern: '2026-07-28 (no session, a server per request)',
};

function percent(share: number): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : 'n/a';
}

function inProcessTable(rows: readonly InProcessRow[]): { table: string; targets: BenchTarget[] } {
  const targets: BenchTarget[] = [];
  const cells = rows.map((row) => {
    const bare = rows.find((other) => other.line === row.line && other.stack.kind === 'bare');
    const added = bare === undefined ? Number.NaN : row.measurement.medianMs - bare.measurement.medianMs;
    if (row.stack.kind === 'full') {
      targets.push({
        name: `${IN_PROCESS_LABELS[row.line]}: the full stack adds under ${formatDuration(IN_PROCESS_TARGET_MS)} median per call`,
        met: added < IN_PROCESS_TARGET_MS,
        detail: formatOverhead(added),
      });
    }
    return [
      IN_PROCESS_LABELS[row.line],
      stackLabel(row.stack),
      formatDuration(row.measurement.medianMs),
      formatDuration(row.measurement.p99Ms),
      formatRate(row.measurement.opsPerSec),
      row.stack.kind === 'bare' ? 'baseline' : formatOverhead(added, bare?.measurement.medianMs),
      formatBytes(row.memory.heapBytes),
      formatBytes(row.memory.rssBytes),
    ];
  });
  const table = markdownTable(
    [
      'SDK line',
      'stack',
      'median',
      'p99',
      'calls/s',
      'added vs bare, median',
      'heap per 1,000 calls',
      'RSS per 1,000 calls',
    ],
    cells,
    ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  return { table, targets };
}

function httpTables(result: FullStackResult): { throughput: string; memory: string; targets: BenchTarget[] } {
  const targets: BenchTarget[] = [];
  const cells: string[][] = [];
  for (const era of ['legacy', 'modern'] as const) {
    for (const inFlight of result.concurrency) {
      const find = (stack: 'bare' | 'full') =>
        result.http.find((row) => row.era === era && row.inFlight === inFlight && row.stack === stack)?.measurement;
      const bare = find('bare');
      const full = find('full');
      if (bare === undefined || full === undefined) continue;
      const share = full.opsPerSec / bare.opsPerSec;
      targets.push({
        name: `HTTP, ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} era, ${String(inFlight)} in flight: the full stack keeps at least ${percent(HTTP_TARGET_SHARE)} of bare-SDK calls/s`,
        met: share >= HTTP_TARGET_SHARE,
        detail: percent(share),
      });
      cells.push([
        ERA_LABELS[era],
        String(inFlight),
        formatRate(bare.opsPerSec),
        formatRate(full.opsPerSec),
        percent(share),
        `${formatDuration(bare.medianMs)} / ${formatDuration(bare.p99Ms)}`,
        `${formatDuration(full.medianMs)} / ${formatDuration(full.p99Ms)}`,
        formatOverhead(full.medianMs - bare.medianMs),
      ]);
    }
  }
  const throughput = markdownTable(
    [
      'era',
      'in flight',
      'bare calls/s',
      'full calls/s',
      'full / bare',
      'bare p50 / p99',
      'full p50 / p99',
      'added, median',
    ],
    cells,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const memory = markdownTable(
    ['era', 'stack', 'server heap', 'server RSS', 'client heap', 'client RSS'],
    result.httpMemory.map((row) => [
      ERA_LABELS[row.era],
      row.stack === 'bare' ? 'bare SDK' : stackLabel({ kind: 'full' }),
      formatBytes(row.server.heapBytes),
      formatBytes(row.server.rssBytes),
      formatBytes(row.client.heapBytes),
      formatBytes(row.client.rssBytes),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right'],
  );
  return { throughput, memory, targets };
}

/** One row per layer added, in pipeline order, with what it added to the row before. */
function layerTable(rows: readonly LayerRow[], layerNames: readonly string[]): string {
  const cells: string[][] = [];
  let previous: LayerRow | undefined;
  for (const row of rows) {
    const label =
      row.stack.kind === 'first' ? `+ \`${layerNames[row.stack.count - 1] ?? '?'}\`` : stackLabel(row.stack);
    cells.push([
      label,
      formatDuration(row.measurement.medianMs),
      formatDuration(row.measurement.p99Ms),
      previous === undefined ? 'baseline' : formatOverhead(row.measurement.medianMs - previous.measurement.medianMs),
    ]);
    previous = row;
  }
  const first = rows[0];
  const last = rows.at(-1);
  if (first !== undefined && last !== undefined && first !== last) {
    cells.push([
      'all layers, over the adapters',
      '',
      '',
      formatOverhead(last.measurement.medianMs - first.measurement.medianMs),
    ]);
  }
  return markdownTable(['stack (SDK v2 in process)', 'median', 'p99', 'added by this layer, median'], cells, [
    'left',
    'right',
    'right',
    'right',
  ]);
}

/**
 * Over HTTP at saturation the server process is the bottleneck, so
 * 1 / (calls/s) is its time per call; each row's increase over the row
 * before is what that layer costs per request, server and client together.
 */
function httpLayerTable(rows: readonly HttpLayerRow[], layerNames: readonly string[]): string {
  // Time per call at saturation over the bare SDK measured just before: 1 / calls/s of each.
  const added = (row: HttpLayerRow): number => 1000 / row.measurement.opsPerSec - 1000 / row.bare.opsPerSec;
  const cells: string[][] = [];
  let previous: HttpLayerRow | undefined;
  for (const row of rows) {
    const label =
      row.stack.kind === 'first' ? `+ \`${layerNames[row.stack.count - 1] ?? '?'}\`` : stackLabel(row.stack);
    cells.push([
      label,
      formatRate(row.measurement.opsPerSec),
      formatRate(row.bare.opsPerSec),
      percent(row.measurement.opsPerSec / row.bare.opsPerSec),
      formatOverhead(added(row)),
      previous === undefined ? 'baseline' : formatOverhead(added(row) - added(previous)),
    ]);
    previous = row;
  }
  return markdownTable(
    [
      'stack (HTTP, 2026-07-28 era)',
      'calls/s',
      'bare SDK calls/s, just before',
      'vs bare',
      'time added per call',
      'added by this step',
    ],
    cells,
    ['left', 'right', 'right', 'right', 'right', 'right'],
  );
}

function targetLines(targets: readonly BenchTarget[]): string {
  return targets
    .map((target) => `- **${target.met ? 'Met' : 'Not met'}**: ${target.name} (measured: ${target.detail}).`)
    .join('\n');
}

/** The section of BENCHMARKS.md for the full stack against the bare SDK. */
export function renderFullStack(result: FullStackResult, layerNames: readonly string[]): BenchSection {
  const inProcess = inProcessTable(result.inProcess);
  const http = httpTables(result);
  const targets = [...inProcess.targets, ...http.targets];
  const levels = result.concurrency.map(String).join(' and ');
  const markdown = `The same trivial tool (\`echo\`, one zod string argument) answered by the
bare SDK (\`McpServer.registerTool\`, a plain SDK client) and by the **full
stack**: every extension package in \`packages/\` composed on the server
(${layerNames.map((name) => `\`${name}\``).join(', ')}) with all their client
halves on the client, negotiated (the run fails if one is not). Options are
the defaults, except that the idempotency budget per caller is raised (every
timed call records a key under one caller) and the tool declares a metered
cost with a quota no run reaches, so the cost layer counts every call and
refuses none. With the default client halves every call carries a fresh
idempotency key, so the server claims the key, runs the tool and stores its
result (\`MemoryStore\`); nothing asks for confirmation.

**In process**: client and server linked in this process; tinybench, one call
at a time, ${result.rounds === 1 ? 'once' : `${String(result.rounds)} rounds alternating the order of the stacks, the lowest median of each kept`}.
"Per 1,000 calls" is what ${result.memoryCalls.toLocaleString('en-US')} calls (after 500 warm-up calls, before any
timing) left in the heap and RSS after a full garbage collection, scaled to
1,000. The full stack keeps each idempotency record (the result, for
replays) for its TTL, so its heap grows by design until the records expire;
RSS moves in whole pages as the allocator takes and returns memory, so
small or negative RSS figures are noise.

${inProcess.table}

**Over HTTP**: a real \`node:http\` server on 127.0.0.1 in a child process
(core's \`createHttpHandler\`, both eras), the SDK's
\`StreamableHTTPClientTransport\` in this process; ${levels} calls in flight
on one client, a fresh client (and session) for each measurement: the SDK
client adds an abort listener per request to one transport-wide signal, and
slows down as they pile up over thousands of calls on one transport; each
level measured for the same time as the other cases,
${result.httpRounds === 1 ? 'once' : `${String(result.httpRounds)} rounds alternating bare and full, the round with the most calls/s of each kept`}.
p50 / p99 include queueing behind the other calls in flight.

${http.throughput}

Memory over HTTP, left behind per 1,000 calls (${result.memoryCalls.toLocaleString('en-US')} calls,
${String(Math.max(...result.concurrency))} in flight, after 500 warm-up calls, before the timing runs) after a
full garbage collection in each process:

${http.memory}

**Where the time goes**: the layers added one at a time in pipeline order,
client and server halves together (SDK v2 in process), from the core's
adapters with nothing composed to the full stack; each row's median minus
the row before is what that layer adds among the others. Rows are separate
measurements, so a layer that adds almost nothing can show a small negative
difference.

${layerTable(result.layers, layerNames)}

The same over HTTP in the 2026-07-28 era, where each request builds its own
server (\`extendServer\` and \`registerTool\` with every composed layer) and
negotiates every extension from the capabilities it carries: one server
process per row warmed up first, ${String(result.httpLayerInFlight)} calls in flight, each row measured right after the
bare SDK (its own process, the whole time), so that a change in the
machine's load between rows moves both figures of a row alike. Time added
per call is 1 / calls/s of the row minus that of the bare SDK; single steps
still carry noise of a few per cent.

${httpLayerTable(result.httpLayers, layerNames)}

${targetLines(targets)}`;
  return { title: 'Full stack vs bare SDK: `tools/call`', markdown, targets };
}
