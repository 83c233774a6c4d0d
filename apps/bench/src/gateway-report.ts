/**
 * The gateway section of BENCHMARKS.md: direct calls against the two
 * gateways and the two reference relays, and, in front of a stdio upstream,
 * the two gateways against `mcp-proxy` (and ContextForge); the deltas, the
 * targets (see `gateway-targets.ts`), and where the references put the
 * floor under them.
 */
import type { GatewayResult } from './gateway.js';
import { HTTP_PATHS, PATH_LABELS, STDIO_PATHS, type GatewayPath } from './gateway-setup.js';
import {
  addedMs,
  find,
  gatewayTargets,
  levels,
  percent,
  rateRatio,
  times,
  PLAIN_ADDED_VS_RELAY,
} from './gateway-targets.js';
import {
  formatDuration,
  formatOverhead,
  formatRate,
  markdownTable,
  type BenchSection,
  type BenchTarget,
} from './markdown.js';

const RIGHT = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'] as const;

/** One table: each of `paths` measured, against `base` (its own row says `baseline`). */
function table(result: GatewayResult, paths: readonly GatewayPath[], base: GatewayPath, baseName: string): string {
  const { low, high } = levels(result);
  const measured = paths.filter(
    (path) => find(result, path, low) !== undefined || find(result, path, high) !== undefined,
  );
  const cells = measured.map((path) => {
    const atLow = find(result, path, low);
    const atHigh = find(result, path, high);
    const isBase = path === base;
    return [
      PATH_LABELS[path],
      formatDuration(atLow?.medianMs ?? Number.NaN),
      formatDuration(atLow?.p99Ms ?? Number.NaN),
      isBase ? 'baseline' : formatOverhead(addedMs(result, path, base, low)),
      formatRate(atHigh?.opsPerSec ?? Number.NaN),
      isBase ? 'baseline' : percent(rateRatio(result, path, base, high)),
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
      `added vs ${baseName}, median`,
      `calls/s, ${at(high)}`,
      `vs ${baseName}, calls/s`,
      `median, ${at(high)}`,
      `p99, ${at(high)}`,
    ],
    cells,
    RIGHT,
  );
}

function targetLines(targets: readonly BenchTarget[]): string {
  return targets
    .map((target) => `- **${target.met ? 'Met' : 'Not met'}**: ${target.name} (measured: ${target.detail}).`)
    .join('\n');
}

/** What the two reference relays measured, against the same direct rows as the targets. */
function referenceLine(result: GatewayResult): string {
  const { low, high } = levels(result);
  const added = (path: GatewayPath): string => formatOverhead(addedMs(result, path, 'direct', low));
  const kept = (path: GatewayPath): string => percent(rateRatio(result, path, 'direct', high));
  return `For reference, the bare SDK relay adds ${added('sdk-relay')} median at ${String(low)} in flight and keeps ${kept('sdk-relay')} of direct calls/s at ${String(high)} in flight; the raw HTTP relay adds ${added('relay')} and keeps ${kept('relay')}, so the no-policy gateway may add up to ${formatOverhead(PLAIN_ADDED_VS_RELAY * addedMs(result, 'relay', 'direct', low))} in this run.`;
}

/** What ContextForge measured against `mcp-proxy`, or why it is not in the table. */
function contextForgeLine(result: GatewayResult): string {
  const reason = result.skipped?.contextforge;
  if (reason !== undefined) return `ContextForge is not measured: ${reason}.`;
  const { high } = levels(result);
  if (find(result, 'contextforge', high) === undefined) return 'ContextForge is not measured in this run.';
  const gateway = `ContextForge completes ${times(rateRatio(result, 'contextforge', 'proxy', high))} the calls/s of \`mcp-proxy\` at ${String(high)} in flight, and ${times(rateRatio(result, 'contextforge', 'stdio-policy', high))} those of the gateway with the full policy.`;
  const bridgeReason = result.skipped?.['contextforge-bridge'];
  if (bridgeReason !== undefined) return `${gateway} Its stdio bridge alone is not measured: ${bridgeReason}.`;
  if (find(result, 'contextforge-bridge', high) === undefined) return gateway;
  return `${gateway} Its stdio bridge alone completes ${times(rateRatio(result, 'contextforge-bridge', 'proxy', high))} the calls/s of \`mcp-proxy\`.`;
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
  const markdown = `### In front of an HTTP upstream

An upstream MCP server that knows no extension (SDK v2 \`McpServer\` behind
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
  costs, the physical floor under any gateway.
- **(e) bare SDK relay, for reference**: the client of (a) calls the
  smallest MCP gateway the SDK allows, a bare \`McpServer\` (built per
  request, one \`write\` tool) behind core's \`createHttpHandler\`, whose tool
  returns what one plain SDK \`Client\` (the SDK's own transport, over the
  global fetch) gets from the upstream's. No extensions, no
  \`@ext/gateway\`: what a gateway built as an SDK server in front of an SDK
  client costs before any policy or extension work.

A call through a gateway is two MCP calls over HTTP: the gateway serves one
(its own SDK server, built per request in this era, and the pipeline, its
JSON answer written in one write) and makes the other. To a 2026-07-28
upstream whose first answer allows it, the gateway makes that one as a
single JSON-RPC POST on a kept-alive socket of Node's \`http\`, its answer
read as JSON or as an event stream, without the SDK client (which still
connects, lists the tools and listens for changes; an upstream it cannot
serve that way keeps the SDK client for calls too). (d) is what the extra
hop costs; what (b) adds beyond it is the gateway's own work, and what (c)
adds beyond (b) is the policy's: the extensions' work and, per call, six
writes to the SQLite store (the quota and two rate-limit counters, reserved
together, the idempotency budget, claim and record), which commits the
writes issued in one turn of the event loop as one transaction.

${table(result, HTTP_PATHS, 'direct', 'direct')}

### In front of a stdio upstream

\`@modelcontextprotocol/server-everything\` (SDK v1, the 2025-11-25 era),
started over stdio, its \`echo\` tool called by the plain SDK client of (a)
(2026-07-28 era) through what serves it over Streamable HTTP:

- **(f) \`mcp-proxy\`, for reference**: the npm package most people put in
  front of a stdio server to serve it over HTTP (pinned in this package's
  devDependencies), its Streamable HTTP endpoint only, its defaults
  otherwise: one connection to the upstream that every caller's calls share.
- **(g) gateway, no policy** and **(h) gateway, full policy** on \`echo\`:
  as (b) and (c), each gateway starting the upstream itself (one process,
  the 2025 handshake, every call on it).
- **(i) ContextForge, for reference**, where it installs and runs here
  (\`mcp-contextforge-gateway\` from PyPI, pinned, in a Python virtual
  environment of its own), set up as its quick start does: its stdio bridge
  (\`mcpgateway.translate\`, Streamable HTTP) starts the upstream, its
  gateway (\`mcpgateway\`, one process, SQLite, no Redis, its rate limit on
  MCP calls raised above what a run reaches, its defaults otherwise: no
  plugins, its own caches) registers the bridge as a gateway
  and exposes its \`echo\` as a virtual server, whose endpoint the client
  of (a) calls with a token signed by its \`create_jwt_token\`. Its gateway
  speaks the 2026-07-28 era to the client and opens a session with the
  bridge for each such call. **(j)** is the bridge alone, which serves only
  the 2025 handshake (the client negotiates 2025-11-25 there). See the line
  after the targets.

${table(result, STDIO_PATHS, 'proxy', '(f)')}

### How it was measured

Both gateways of each upstream keep their state in a SQLite file of their
own in a temporary directory. Client (this process), upstreams and each
gateway, relay and bridge run in separate processes on this machine. At
${String(high)} in flight the processes of a path share the machine's cores, so the
gateway's work is taken from the upstream's and the client's. Each client
checks its first result before it is timed (on (c) and (h) the idempotency
record, the cost and the provenance must be there, or the run fails); each
path first takes ${result.warmupCalls.toLocaleString('en-US')} calls at ${String(high)} in flight, so that every
process's code is optimised; then ${levelsText} calls in flight on one client, a
fresh client for each measurement, ${rounds}. Median and p99 at ${String(low)} in flight
are one call's latency; at ${String(high)} in flight they include queueing behind the
others. The machine is shared and its load changes during a run, so every
target is a ratio to a reference measured in the same run: rows of these
tables compare with each other, not with another run.

${targetLines(targets)}

${referenceLine(result)} ${contextForgeLine(result)}`;
  return { title: 'Gateway: `tools/call` direct and through `@ext/gateway`', markdown, targets };
}
