/**
 * The gateway's Prometheus series, defined on a registry of its own (never
 * prom-client's global one), so two gateways in one process, or an
 * application's own metrics beside them, never clash. Names follow the
 * Prometheus conventions and, where they measure the same thing, the
 * OpenTelemetry semantic conventions for MCP (`mcp.server.operation.duration`
 * as `mcp_server_operation_duration_seconds`, attributes `mcp.method.name`,
 * `gen_ai.tool.name` and `error.type` as labels with `_` for `.`).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BREAKER_STATES, isAvailable, type UpstreamStates } from './upstream-states.js';

/** The conventions' buckets for MCP operation durations, in seconds. */
const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** What the gateway adds is mostly well under the conventions' first bucket. */
const ADDED_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, ...OPERATION_BUCKETS];

/** What the gauges read when scraped. */
export interface MetricSources {
  /** The upstreams the gateway has now (a reload may change them). */
  readonly upstreams: () => readonly string[];
  readonly states: UpstreamStates;
  /** Approval requests pending on the desk; `undefined` without approvals. */
  readonly pendingApprovals?: (() => number) | undefined;
}

function callSeries(registers: Registry[]) {
  return {
    calls: new Counter({
      name: 'mcp_gateway_tool_calls_total',
      help: 'Tool calls answered, by upstream, tool, outcome (ok, error, held) and error category.',
      labelNames: ['upstream', 'gen_ai_tool_name', 'outcome', 'error_category'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'mcp_server_operation_duration_seconds',
      help: 'Duration of each tools/call as the gateway served it, from its arrival to its answer.',
      labelNames: ['mcp_method_name', 'gen_ai_tool_name', 'error_type'] as const,
      buckets: OPERATION_BUCKETS,
      registers,
    }),
    added: new Histogram({
      name: 'mcp_gateway_added_duration_seconds',
      help: 'Time the gateway adds to a tool call: its whole duration less the time spent waiting on the upstream.',
      labelNames: ['upstream', 'gen_ai_tool_name'] as const,
      buckets: ADDED_BUCKETS,
      registers,
    }),
    upstream: new Histogram({
      name: 'mcp_client_operation_duration_seconds',
      help: 'Duration of each tools/call the gateway sent upstream, until its answer.',
      labelNames: ['mcp_method_name', 'upstream', 'gen_ai_tool_name', 'error_type'] as const,
      buckets: OPERATION_BUCKETS,
      registers,
    }),
    refusals: new Counter({
      name: 'mcp_gateway_limit_refusals_total',
      help: 'Calls refused by a quota or a rate limit.',
      labelNames: ['upstream', 'gen_ai_tool_name', 'limit'] as const,
      registers,
    }),
  };
}

function gateSeries(registers: Registry[], sources: MetricSources) {
  return {
    confirmationsRequested: new Counter({
      name: 'mcp_gateway_confirmations_requested_total',
      help: 'Calls held for a person’s confirmation through the client (a confirmation token issued).',
      labelNames: ['gen_ai_tool_name'] as const,
      registers,
    }),
    confirmationsDecided: new Counter({
      name: 'mcp_gateway_confirmations_decided_total',
      help: 'In-band confirmations decided: confirmed, declined, or refused (no way to ask, a bad or used token).',
      labelNames: ['gen_ai_tool_name', 'decision'] as const,
      registers,
    }),
    approvalsRequested: new Counter({
      name: 'mcp_gateway_approvals_requested_total',
      help: 'Approval requests opened for an operator by this instance.',
      labelNames: ['gen_ai_tool_name'] as const,
      registers,
    }),
    approvalsDecided: new Counter({
      name: 'mcp_gateway_approvals_decided_total',
      help: 'Approval requests decided on this instance: approved, denied, expired or cancelled.',
      labelNames: ['gen_ai_tool_name', 'decision'] as const,
      registers,
    }),
    approvalsPending: new Gauge({
      name: 'mcp_gateway_approvals_pending',
      help: 'Approval requests waiting for an operator, on the store every instance shares (aggregate with max).',
      registers,
      collect() {
        this.set(sources.pendingApprovals?.() ?? 0);
      },
    }),
  };
}

function upstreamSeries(registers: Registry[], sources: MetricSources) {
  const { upstreams, states } = sources;
  return {
    up: new Gauge({
      name: 'mcp_gateway_upstream_up',
      help: '1 while the upstream answers and no open circuit breaker fails its calls, else 0.',
      labelNames: ['upstream'] as const,
      registers,
      collect() {
        this.reset();
        for (const upstream of upstreams()) this.set({ upstream }, isAvailable(states.of(upstream)) ? 1 : 0);
      },
    }),
    breaker: new Gauge({
      name: 'mcp_gateway_upstream_breaker_state',
      help: 'The upstream’s circuit breaker: 1 for the state it is in (closed, open, half_open), 0 for the others.',
      labelNames: ['upstream', 'state'] as const,
      registers,
      collect() {
        this.reset();
        for (const upstream of upstreams()) {
          const current = states.of(upstream).breaker;
          for (const state of BREAKER_STATES) this.set({ upstream, state }, state === current ? 1 : 0);
        }
      },
    }),
    // Every upstream's counters start at 0, so rate() and increase() see their first event.
    reconnects: new Counter({
      name: 'mcp_gateway_upstream_reconnects_total',
      help: 'Connections made again to an upstream after one was lost.',
      labelNames: ['upstream'] as const,
      registers,
      collect() {
        for (const upstream of upstreams()) this.inc({ upstream }, 0);
      },
    }),
    retries: new Counter({
      name: 'mcp_gateway_upstream_retries_total',
      help: 'Calls to an upstream tried again after a failure.',
      labelNames: ['upstream'] as const,
      registers,
      collect() {
        for (const upstream of upstreams()) this.inc({ upstream }, 0);
      },
    }),
    storeErrors: new Counter({
      name: 'mcp_gateway_store_errors_total',
      help: 'Store operations that failed, by reason (unreachable, timeout, busy, ...; other).',
      labelNames: ['reason'] as const,
      registers,
    }),
  };
}

export type GatewaySeries = ReturnType<typeof callSeries> &
  ReturnType<typeof gateSeries> &
  ReturnType<typeof upstreamSeries>;

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly series: GatewaySeries;
}

/** A new registry holding the gateway's series, read from `sources` when scraped. */
export function gatewayMetrics(sources: MetricSources): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  const series = {
    ...callSeries(registers),
    ...gateSeries(registers, sources),
    ...upstreamSeries(registers, sources),
  };
  return { registry, series };
}

let processRegistry: Registry | undefined;

/**
 * The process's own series (CPU, memory, event loop, GC, handles): one
 * registry for the process, made on first use. They describe the process,
 * which every gateway in it shares, and collecting them starts an event-loop
 * monitor and a GC observer that are never stopped: once is enough.
 */
export function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The text a scrape gets: the process's series, then the gateway's. */
export async function exposition(metrics: GatewayMetrics): Promise<string> {
  const [process, gateway] = await Promise.all([processMetrics().metrics(), metrics.registry.metrics()]);
  return `${process}\n${gateway}`;
}
