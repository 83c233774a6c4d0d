/**
 * What the rest of the gateway tells its metrics: a small typed interface of
 * events, so that nothing outside `metrics/` knows Prometheus. The recorder
 * keeps the upstreams' states (which `/readyz` reads) whether or not metrics
 * are served; `noopRecorder` records nothing at all.
 */
import type { GatewaySeries } from './registry.js';
import type { BreakerState, UpstreamStates } from './upstream-states.js';

/** How a call ended for its client: answered, failed, or held (nothing ran yet: it waits for a person). */
export type CallOutcome = 'ok' | 'error' | 'held';
/** The limit that refused a call. */
export type LimitKind = 'quota' | 'rate_limit';
/** How an in-band confirmation ended. */
export type ConfirmationDecision = 'confirmed' | 'declined' | 'refused';
/** How an approval request ended. */
export type ApprovalDecision = 'approved' | 'denied' | 'expired' | 'cancelled';

/** A tool call the gateway answered. */
export interface FinishedCall {
  /** The upstream the tool lives on; empty for a name the gateway does not offer. */
  readonly upstream: string;
  /** The offered name, or `_OTHER` for a name the gateway does not offer (labels stay bounded). */
  readonly tool: string;
  readonly outcome: CallOutcome;
  /** The structured error's category, `tool_error` for an upstream's `isError` result, ...; empty when it did not fail. */
  readonly category: string;
  /** `error.type` as the OpenTelemetry conventions say (`tool_error`, a JSON-RPC code, ...); empty when it did not fail. */
  readonly errorType: string;
  /** The call's whole duration less `upstreamSeconds`. */
  readonly gatewaySeconds: number;
  /** Time spent waiting on the upstream during the call; 0 when it never reached it. */
  readonly upstreamSeconds: number;
}

/** One call the gateway sent upstream, answered or failed. */
export interface UpstreamAnswer {
  readonly upstream: string;
  readonly tool: string;
  readonly seconds: number;
  /** Empty when it answered (an `isError` result is `tool_error`); else its fault's code or class. */
  readonly errorType: string;
}

export interface GatewayRecorder {
  callFinished(call: FinishedCall): void;
  upstreamAnswered(answer: UpstreamAnswer): void;
  refused(kind: LimitKind, call: { readonly upstream: string; readonly tool: string }): void;
  confirmationRequested(tool: string): void;
  confirmationDecided(tool: string, decision: ConfirmationDecision): void;
  approvalRequested(tool: string): void;
  approvalDecided(tool: string, decision: ApprovalDecision): void;
  /** An upstream began to answer (`true`) or an outage of it began (`false`). */
  upstreamState(upstream: string, up: boolean): void;
  /** A connection to the upstream was made again after one was lost. */
  reconnected(upstream: string): void;
  /** The upstream's circuit breaker changed state. */
  breakerState(upstream: string, state: BreakerState): void;
  /** A call to the upstream is tried again after a failure. */
  retried(upstream: string): void;
  /** A store operation failed (`StoreUnavailableError.reason`, or `other`). */
  storeError(reason: string): void;
}

/** What an upstream connection tells: its outages, its reconnects, its circuit breaker and its retries. */
export type UpstreamRecorder = Pick<GatewayRecorder, 'upstreamState' | 'reconnected' | 'breakerState' | 'retried'>;

function ignore(): void {
  // Nothing is recorded.
}

/** Records nothing (a gateway used as a library without metrics, tests). */
export const noopRecorder: GatewayRecorder = {
  callFinished: ignore,
  upstreamAnswered: ignore,
  refused: ignore,
  confirmationRequested: ignore,
  confirmationDecided: ignore,
  approvalRequested: ignore,
  approvalDecided: ignore,
  upstreamState: ignore,
  reconnected: ignore,
  breakerState: ignore,
  retried: ignore,
  storeError: ignore,
};

const TOOLS_CALL = 'tools/call';

/** A recorder onto the series of one gateway (`undefined`: only the upstreams' states are kept). */
export function gatewayRecorder(states: UpstreamStates, series: GatewaySeries | undefined): GatewayRecorder {
  const kept: GatewayRecorder = {
    ...noopRecorder,
    upstreamState: (upstream, up) => {
      states.setUp(upstream, up);
    },
    breakerState: (upstream, state) => {
      states.setBreaker(upstream, state);
    },
  };
  return series === undefined ? kept : { ...kept, ...seriesRecorder(series) };
}

function seriesRecorder(series: GatewaySeries): Omit<GatewayRecorder, 'upstreamState' | 'breakerState'> {
  return {
    callFinished: (call) => {
      const { upstream, tool: gen_ai_tool_name } = call;
      series.calls.inc({ upstream, gen_ai_tool_name, outcome: call.outcome, error_category: call.category });
      series.duration.observe(
        { mcp_method_name: TOOLS_CALL, gen_ai_tool_name, error_type: call.errorType },
        call.gatewaySeconds + call.upstreamSeconds,
      );
      series.added.observe({ upstream, gen_ai_tool_name }, call.gatewaySeconds);
    },
    upstreamAnswered: (answer) => {
      series.upstream.observe(
        {
          mcp_method_name: TOOLS_CALL,
          upstream: answer.upstream,
          gen_ai_tool_name: answer.tool,
          error_type: answer.errorType,
        },
        answer.seconds,
      );
    },
    refused: (limit, call) => {
      series.refusals.inc({ upstream: call.upstream, gen_ai_tool_name: call.tool, limit });
    },
    confirmationRequested: (tool) => {
      series.confirmationsRequested.inc({ gen_ai_tool_name: tool });
    },
    confirmationDecided: (tool, decision) => {
      series.confirmationsDecided.inc({ gen_ai_tool_name: tool, decision });
    },
    approvalRequested: (tool) => {
      series.approvalsRequested.inc({ gen_ai_tool_name: tool });
    },
    approvalDecided: (tool, decision) => {
      series.approvalsDecided.inc({ gen_ai_tool_name: tool, decision });
    },
    reconnected: (upstream) => {
      series.reconnects.inc({ upstream });
    },
    retried: (upstream) => {
      series.retries.inc({ upstream });
    },
    storeError: (reason) => {
      series.storeErrors.inc({ reason });
    },
  };
}
