/**
 * The gateway section of BENCHMARKS.md: direct calls against the two
 * gateways and the two reference relays, the deltas, the two targets, and
 * where the relays put the floor under them.
 */
import type { GatewayResult } from './gateway.js';
import { GATEWAY_PATHS, PATH_LABELS, type GatewayPath } from './gateway-setup.js';
import {
  formatDuration,
  formatOverhead,
  formatRate,
  markdownTable,
  type BenchSection,
  type BenchTarget,
} from './markdown.js';
import type { Measurement } from './measure.js';

/** The full-policy gateway adds at most this many milliseconds to the direct median, one call in flight. */
export const GATEWAY_LATENCY_TARGET_MS = 1;
/** The full-policy gateway keeps at least this share of direct calls/s at the most calls in flight. */
export const GATEWAY_THROUGHPUT_SHARE = 0.5;

function percent(share: number): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : 'n/a';
}

function find(result: GatewayResult, path: GatewayPath, inFlight: number): Measurement | undefined {
  return result.rows.find((row) => row.path === path && row.inFlight === inFlight)?.measurement;
}

/** The level the latency target reads (the fewest calls in flight) and the one the throughput target reads (the most). */
function levels(result: GatewayResult): { low: number; high: number } {
  return { low: Math.min(...result.concurrency), high: Math.max(...result.concurrency) };
}

/** What `path` adds to the direct median at `inFlight` calls in flight, in ms (NaN if either is missing). */
function addedMs(result: GatewayResult, path: GatewayPath, inFlight: number): number {
  return (
    (find(result, path, inFlight)?.medianMs ?? Number.NaN) - (find(result, 'direct', inFlight)?.medianMs ?? Number.NaN)
  );
}

/** The share of direct calls/s `path` keeps at `inFlight` calls in flight (NaN if either is missing). */
function keptShare(result: GatewayResult, path: GatewayPath, inFlight: number): number {
  return (
    (find(result, path, inFlight)?.opsPerSec ?? Number.NaN) /
    (find(result, 'direct', inFlight)?.opsPerSec ?? Number.NaN)
  );
}

function table(result: GatewayResult): string {
  const { low, high } = levels(result);
  const cells = GATEWAY_PATHS.map((path) => {
    const atLow = find(result, path, low);
    const atHigh = find(result, path, high);
    const direct = path === 'direct';
    return [
      PATH_LABELS[path],
      formatDuration(atLow?.medianMs ?? Number.NaN),
      formatDuration(atLow?.p99Ms ?? Number.NaN),
      direct ? 'baseline' : formatOverhead(addedMs(result, path, low)),
      formatRate(atHigh?.opsPerSec ?? Number.NaN),
      direct ? 'baseline' : percent(keptShare(result, path, high)),
      formatDuration(atHigh?.medianMs ?? Number.NaN),
      formatDuration(atHigh?.p99Ms ?? Number.NaN),
    ];
  });
  const at = (n: number): string => `${String(n)} in flight`;
  return markdownTable(
    [
      'path',
      `median, ${at(low)}`,
      `p99, ${at(low)}`,
      'added vs direct, median',
      `calls/s, ${at(high)}`,
      'vs direct, calls/s',
      `median, ${at(high)}`,
      `p99, ${at(high)}`,
    ],
    cells,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

/** The two targets, read from the full-policy rows. */
export function gatewayTargets(result: GatewayResult): BenchTarget[] {
  const { low, high } = levels(result);
  const added = addedMs(result, 'policy', low);
  const share = keptShare(result, 'policy', high);
  return [
    {
      name: `gateway with the full policy, ${String(low)} in flight: adds at most ${formatDuration(GATEWAY_LATENCY_TARGET_MS)} median per call over calling the upstream directly`,
      met: added <= GATEWAY_LATENCY_TARGET_MS,
      detail: Number.isFinite(added) ? formatOverhead(added) : 'not measured',
    },
    {
      name: `gateway with the full policy, ${String(high)} in flight: keeps at least ${percent(GATEWAY_THROUGHPUT_SHARE)} of direct calls/s`,
      met: share >= GATEWAY_THROUGHPUT_SHARE,
      detail: percent(share),
    },
  ];
}

function targetLines(targets: readonly BenchTarget[]): string {
  return targets
    .map((target) => `- **${target.met ? 'Met' : 'Not met'}**: ${target.name} (measured: ${target.detail}).`)
    .join('\n');
}

/** What the two reference relays measured, against the same direct rows as the targets. */
function referenceLine(result: GatewayResult): string {
  const { low, high } = levels(result);
  const added = (path: GatewayPath): string => formatOverhead(addedMs(result, path, low));
  const kept = (path: GatewayPath): string => percent(keptShare(result, path, high));
  return `For reference, the bare SDK relay adds ${added('sdk-relay')} median at ${String(low)} in flight and keeps ${kept('sdk-relay')} of direct calls/s at ${String(high)} in flight; the raw HTTP relay adds ${added('relay')} and keeps ${kept('relay')}.`;
}

/** The section of BENCHMARKS.md for `@ext/gateway`. */
export function renderGateway(result: GatewayResult): BenchSection {
  const targets = gatewayTargets(result);
  const { low, high } = levels(result);
  const levelsText = result.concurrency.map(String).join(' and ');
  const rounds =
    result.rounds === 1
      ? 'once'
      : `${String(result.rounds)} rounds alternating the order of the paths, the round with the most calls/s of each kept`;
  const markdown = `An upstream MCP server that knows no extension (SDK v2 \`McpServer\` behind
core's \`createHttpHandler\`, a \`write\` tool that says its text back) called
over Streamable HTTP on 127.0.0.1 in the 2026-07-28 era, three ways, and
two more that are not gateways but floors under them:

- **(a) direct**: a plain SDK client calls the upstream.
- **(b) gateway, no policy**: the same client calls \`@ext/gateway\` in front
  of the upstream, every tool \`confirm: false\` and \`idempotent: false\`, no
  cost, no scopes, no intent rules, no provenance.
- **(c) gateway, full policy** on \`write\`: a metered cost with a quota and
  per-minute and per-day rate limits no run reaches, a required scope that
  the caller holds (granted by the authentication in front of the gateway,
  as an OAuth layer would), idempotency keys honoured, a provenance source
  cited on every result, an intent rule read on every call (it recommends
  the upstream's \`read\` tool for another intent than the one stated), no
  confirmation. The client is a host with the client halves of every
  extension the gateway composes; each call carries a fresh idempotency key
  and a stated intent, and each measurement is a caller of its own.
- **(d) raw HTTP relay, for reference**: the client of (a) calls a
  \`node:http\` server that reads each request whole and sends it on to the
  upstream over keep-alive sockets (the host rewritten), then sends back
  the upstream's answer, read whole. No MCP at all: what one more HTTP hop
  costs.
- **(e) bare SDK relay, for reference**: the client of (a) calls the
  smallest MCP gateway the SDK allows, a bare \`McpServer\` (built per
  request, one \`write\` tool) behind core's \`createHttpHandler\`, whose tool
  returns what one plain SDK \`Client\` (the SDK's own transport, over the
  global fetch) gets from the upstream's. No extensions, no
  \`@ext/gateway\`: what a gateway built as an SDK server in front of an SDK
  client costs before any policy or extension work.

Both gateways keep their state in a SQLite file in a temporary directory.
Client (this process), upstream and each gateway and relay run in separate
processes on this machine. A call through a gateway is two MCP calls over
HTTP: the gateway serves one (its own server, built per request in this
era, and the pipeline, its JSON answer written in one write) and makes the
other (an SDK client to the upstream, over keep-alive sockets of Node's
\`http\` rather than the global fetch), so even with no policy it adds about
as much work per call as the direct call takes. (e) is that floor with
nothing else on it, and (d) the part of it that is only the extra hop: what
(b) and (c) add beyond (e) is the gateway's own work. The full policy
adds the extensions' work and, per call, six writes to the SQLite store
(the quota and two rate-limit counters, reserved together, the idempotency
budget, claim and record), which commits the writes issued in one turn of
the event loop as one transaction. At ${String(high)} in flight the processes of a
path share the machine's cores, so the gateway's work is taken from the
upstream's and the client's. Each client checks its first result before it
is timed (on (c) the idempotency record, the cost and the provenance must
be there, or the run fails); each path first takes
${result.warmupCalls.toLocaleString('en-US')} calls at ${String(high)} in flight, so that every process's code is
optimised; then ${levelsText} calls in flight on one client, a fresh client for
each measurement, ${rounds}. Median and p99 at ${String(low)} in flight are one call's
latency; at ${String(high)} in flight they include queueing behind the others.
The machine is shared and its load changes during a run: compare rows of
this table with each other, and read the targets as this run's outcome on
this machine, not as a guarantee.

${table(result)}

${targetLines(targets)}

${referenceLine(result)}`;
  return { title: 'Gateway: `tools/call` direct and through `@ext/gateway`', markdown, targets };
}
