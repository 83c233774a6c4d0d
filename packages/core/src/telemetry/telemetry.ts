/**
 * OpenTelemetry traces and metrics of the requests the core runs, after the
 * semantic conventions for MCP: a SERVER span per request named
 * `{mcp.method.name} {target}`, a child span per pipeline stage, and the
 * `mcp.server.operation.duration` histogram (`telemetry-server.ts`); on the
 * client, a CLIENT span whose context travels in `params._meta`
 * (`traceparent`, `tracestate`; `telemetry-client.ts`). Everything goes
 * through `@opentelemetry/api` when the application installed it; without
 * it, or with no SDK registered, this costs next to nothing (apps/bench
 * measures it). This file holds what both sides share.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { otelApi, type OtelApi } from './otel-api.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  OTHER_ERROR,
  type Outcome,
} from './semconv.js';

/** What client and server spans of one operation share: the method, and the tool of a tool call. */
export function operationAttributes(method: string, tool: string | undefined): Attributes {
  const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
  if (tool !== undefined) {
    attributes[ATTR_GEN_AI_TOOL_NAME] = tool;
    attributes[ATTR_GEN_AI_OPERATION_NAME] = 'execute_tool';
  }
  return attributes;
}

/** Marks `span` failed when `outcome` says so: `error.type`, the status code, status `ERROR`. */
export function markFailed(api: OtelApi, span: Span, outcome: Outcome): void {
  if (outcome.errorType === undefined) return;
  span.setAttribute(ATTR_ERROR_TYPE, outcome.errorType);
  if (outcome.statusCode !== undefined) span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, outcome.statusCode);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.message });
}

/** `outcome(result, thrown)`, or `_OTHER` should reading what was thrown throw: telemetry never fails a request. */
function safeOutcome<T>(
  outcome: (result: T | undefined, error: unknown) => Outcome,
  result: T | undefined,
  thrown: unknown,
): Outcome {
  try {
    return outcome(result, thrown);
  } catch {
    return { errorType: OTHER_ERROR };
  }
}

/**
 * `start()`, or `undefined` should it throw: telemetry never fails a request
 * (a hostile `_meta`, a broken provider), which then runs untraced.
 */
export function startedSafely<T>(start: () => T | undefined): T | undefined {
  try {
    return start();
  } catch {
    return undefined;
  }
}

/**
 * What `run` returns or throws, once `end` was told how it went: the
 * outcome `outcome` makes of it, and what was thrown.
 */
export async function reportingOutcome<T>(
  run: () => Promise<T>,
  outcome: (result: T | undefined, error: unknown) => Outcome,
  end: (outcome: Outcome, thrown: unknown) => void,
): Promise<T> {
  let result: T | undefined;
  let thrown: unknown;
  try {
    result = await run();
    return result;
  } catch (error) {
    thrown = error;
    throw error;
  } finally {
    end(safeOutcome(outcome, result, thrown), thrown);
  }
}

/**
 * The trace and span ids of the active span, to put beside a log line so
 * logs and traces of one request can be joined; empty without telemetry.
 */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const api = otelApi();
  const spanContext = api?.trace.getSpanContext(api.context.active());
  if (api === undefined || spanContext === undefined || !api.trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
