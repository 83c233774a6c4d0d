/**
 * The gateway section's targets, each a ratio to a reference measured in the
 * same run (the load of a shared machine moves both alike): what the
 * gateway with no policy adds against what one more HTTP hop adds, the
 * share of direct calls/s it keeps, what the full policy adds on top of it,
 * and, in front of a stdio upstream, calls/s against `mcp-proxy`. Pure
 * functions of a run's rows.
 */
import type { GatewayResult } from './gateway.js';
import { PATH_LABELS, type GatewayPath } from './gateway-setup.js';
import { formatDuration, formatOverhead, formatRate, type BenchTarget } from './markdown.js';
import type { Measurement } from './measure.js';

/** The gateway with no policy adds at most this many times what the raw relay adds to the direct median. */
export const PLAIN_ADDED_VS_RELAY = 3;
/** The gateway with no policy keeps at least this share of direct calls/s at the most calls in flight. */
export const PLAIN_THROUGHPUT_SHARE = 0.6;
/** The full policy adds at most this many milliseconds to the median of the gateway with no policy. */
export const POLICY_ADDED_MS = 0.5;
/** The full-policy gateway keeps at least this share of the no-policy gateway's calls/s. */
export const POLICY_THROUGHPUT_SHARE = 0.85;
/** In front of the stdio upstream, the full-policy gateway's calls/s against `mcp-proxy`'s: at least this. */
export const STDIO_POLICY_VS_PROXY = 1;
/** In front of the stdio upstream, the no-policy gateway's calls/s against `mcp-proxy`'s: at least this. */
export const STDIO_PLAIN_VS_PROXY = 1.2;

export function percent(share: number): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : 'n/a';
}

export function times(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
}

export function find(result: GatewayResult, path: GatewayPath, inFlight: number): Measurement | undefined {
  return result.rows.find((row) => row.path === path && row.inFlight === inFlight)?.measurement;
}

/** The level latency targets read (the fewest calls in flight) and the one throughput targets read (the most). */
export function levels(result: GatewayResult): { low: number; high: number } {
  return { low: Math.min(...result.concurrency), high: Math.max(...result.concurrency) };
}

/** What `path` adds to `base`'s median at `inFlight` calls in flight, in ms (NaN if either is missing). */
export function addedMs(result: GatewayResult, path: GatewayPath, base: GatewayPath, inFlight: number): number {
  return (
    (find(result, path, inFlight)?.medianMs ?? Number.NaN) - (find(result, base, inFlight)?.medianMs ?? Number.NaN)
  );
}

/** `path`'s calls/s over `base`'s at `inFlight` calls in flight (NaN if either is missing). */
export function rateRatio(result: GatewayResult, path: GatewayPath, base: GatewayPath, inFlight: number): number {
  return (
    (find(result, path, inFlight)?.opsPerSec ?? Number.NaN) / (find(result, base, inFlight)?.opsPerSec ?? Number.NaN)
  );
}

/** `(b)` of `(b) through the gateway, no policy`. */
function letter(path: GatewayPath): string {
  return PATH_LABELS[path].slice(0, 3);
}

/** A target met when `value` is finite and `holds`. */
function target(name: string, value: number, holds: (value: number) => boolean, detail: string): BenchTarget {
  return {
    name,
    met: Number.isFinite(value) && holds(value),
    detail: Number.isFinite(value) ? detail : 'not measured',
  };
}

/** (b)'s added median against (d)'s: at most {@link PLAIN_ADDED_VS_RELAY} times. */
function plainLatency(result: GatewayResult, low: number): BenchTarget {
  const plain = addedMs(result, 'plain', 'direct', low);
  const relay = addedMs(result, 'relay', 'direct', low);
  const limit = PLAIN_ADDED_VS_RELAY * relay;
  return target(
    `gateway, no policy ${letter('plain')}, ${String(low)} in flight: adds to the direct median at most ${String(PLAIN_ADDED_VS_RELAY)}x what the raw HTTP relay ${letter('relay')} adds`,
    plain - limit,
    (over) => over <= 0,
    `${formatOverhead(plain)} against ${formatOverhead(relay)} (${times(plain / relay)})`,
  );
}

function plainThroughput(result: GatewayResult, high: number): BenchTarget {
  const share = rateRatio(result, 'plain', 'direct', high);
  return target(
    `gateway, no policy ${letter('plain')}, ${String(high)} in flight: keeps at least ${percent(PLAIN_THROUGHPUT_SHARE)} of direct calls/s`,
    share,
    (value) => value >= PLAIN_THROUGHPUT_SHARE,
    percent(share),
  );
}

function policyLatency(result: GatewayResult, low: number): BenchTarget {
  const added = addedMs(result, 'policy', 'plain', low);
  return target(
    `gateway with the full policy ${letter('policy')}, ${String(low)} in flight: adds at most ${formatDuration(POLICY_ADDED_MS)} median over the gateway with no policy ${letter('plain')}`,
    added,
    (value) => value <= POLICY_ADDED_MS,
    formatOverhead(added),
  );
}

function policyThroughput(result: GatewayResult, high: number): BenchTarget {
  const share = rateRatio(result, 'policy', 'plain', high);
  return target(
    `gateway with the full policy ${letter('policy')}, ${String(high)} in flight: keeps at least ${percent(POLICY_THROUGHPUT_SHARE)} of the calls/s of the gateway with no policy ${letter('plain')}`,
    share,
    (value) => value >= POLICY_THROUGHPUT_SHARE,
    percent(share),
  );
}

/** `path`'s calls/s in front of the stdio upstream against `mcp-proxy`'s: at least `least` times. */
function againstProxy(
  result: GatewayResult,
  path: GatewayPath,
  least: number,
  high: number,
  what: string,
): BenchTarget {
  const ratio = rateRatio(result, path, 'proxy', high);
  const rate = (of: GatewayPath): string => formatRate(find(result, of, high)?.opsPerSec ?? Number.NaN);
  const bound = least === 1 ? 'at least as many calls/s as' : `at least ${times(least)} the calls/s of`;
  return target(
    `stdio upstream, ${String(high)} in flight: the gateway ${what} ${letter(path)} completes ${bound} \`mcp-proxy\` ${letter('proxy')}`,
    ratio,
    (value) => value >= least,
    `${times(ratio)} (${rate(path)} against ${rate('proxy')} calls/s)`,
  );
}

/** The six targets of the gateway section, in the order the section states them. */
export function gatewayTargets(result: GatewayResult): BenchTarget[] {
  const { low, high } = levels(result);
  return [
    plainLatency(result, low),
    plainThroughput(result, high),
    policyLatency(result, low),
    policyThroughput(result, high),
    againstProxy(result, 'stdio-policy', STDIO_POLICY_VS_PROXY, high, 'with the full policy'),
    againstProxy(result, 'stdio-plain', STDIO_PLAIN_VS_PROXY, high, 'with no policy'),
  ];
}
