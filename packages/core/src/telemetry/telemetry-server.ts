/**
 * The server side of the core's telemetry: each request an adapter runs is a
 * SERVER span, with a child span per pipeline stage and its duration
 * recorded, parented on the trace context the caller put in `params._meta`.
 */
import type { Attributes, Context, Histogram, Link, Span, TextMapGetter, Tracer } from '@opentelemetry/api';
import type { RequestContext, ToolMiddleware } from '../contract/extension.js';
import { isRecord } from '../kit/records.js';
import { coreTracer, INSTRUMENTATION_SCOPE, otelApi, serverDurationHistogram, type OtelApi } from './otel-api.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_EXTENSION,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_PIPELINE_STAGE,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  errorClass,
  operationName,
  type Outcome,
} from './semconv.js';
import { markFailed, operationAttributes, reportingOutcome, startedSafely } from './telemetry.js';

/** What a server span is made of: the request as the adapter received it. */
export interface OperationStart {
  /** `mcp.method.name`: `tools/call`, or an extension method `<id>/<verb>`. */
  readonly method: string;
  /** The tool of a `tools/call` (`gen_ai.tool.name`, the span name's target). */
  readonly tool?: string | undefined;
  /** `params._meta` of the request: where the caller's trace context travels. */
  readonly meta: unknown;
  readonly ctx: Pick<RequestContext, 'protocolVersion' | 'sessionId' | 'requestId'>;
}

/** The part of a server operation the pipeline sees. */
export interface ServerOperation {
  /** Whether the request's span is recorded: stage spans are made only then. */
  readonly recording: boolean;
  /** `middleware` under a span for its stage, a child of the request's span. */
  stage(middleware: ToolMiddleware, entry: { readonly stage: string; readonly extension: string }): ToolMiddleware;
  /** Runs `fn` with the request's span active (the tool handler: what it calls is the request's child). */
  inRequest<T>(fn: () => T): T;
}

// `_meta` values are any JSON: only strings are trace context.
const META_GETTER: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

function asMeta(meta: unknown): Readonly<Record<string, unknown>> {
  return isRecord(meta) ? meta : {};
}

/**
 * The parent of a server span: the trace context the caller put in
 * `params._meta`, else the ambient context (a transport's span). When both
 * exist the ambient span is linked, as the conventions ask: one HTTP request
 * may carry several MCP requests, and one MCP request several HTTP ones.
 */
function parentOf(
  api: OtelApi,
  meta: unknown,
): { readonly context: Context; readonly remote: boolean; readonly links?: Link[] | undefined } {
  const ambient = api.context.active();
  const extracted = api.propagation.extract(ambient, asMeta(meta), META_GETTER);
  const remote = api.trace.getSpanContext(extracted);
  const local = api.trace.getSpanContext(ambient);
  if (remote === undefined || remote === local || !api.trace.isSpanContextValid(remote))
    return { context: ambient, remote: false };
  // In process (a test pair, a client in the server's process) the ambient span may be the caller's span itself.
  const linked = local !== undefined && api.trace.isSpanContextValid(local) && local.spanId !== remote.spanId;
  return { context: extracted, remote: true, links: linked ? [{ context: local }] : undefined };
}

function requestAttributes(start: OperationStart): Attributes {
  const attributes = operationAttributes(start.method, start.tool);
  const { protocolVersion, sessionId, requestId } = start.ctx;
  if (protocolVersion !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
  if (sessionId !== undefined) attributes[ATTR_MCP_SESSION_ID] = sessionId;
  if (requestId !== undefined) attributes[ATTR_JSONRPC_REQUEST_ID] = String(requestId);
  return attributes;
}

/** The histogram's attributes: the span's, less what names one request or session (unbounded cardinality). */
function metricAttributes(attributes: Attributes, outcome: Outcome): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (key !== ATTR_MCP_SESSION_ID && key !== ATTR_JSONRPC_REQUEST_ID) out[key] = value;
  if (outcome.errorType !== undefined) out[ATTR_ERROR_TYPE] = outcome.errorType;
  if (outcome.statusCode !== undefined) out[ATTR_RPC_RESPONSE_STATUS_CODE] = outcome.statusCode;
  return out;
}

/** One request the server handles, traced and timed. */
class Operation implements ServerOperation {
  readonly recording: boolean;
  readonly #started = performance.now();
  // What was thrown and already recorded on a span: an error passes through every stage around its origin.
  readonly #recorded = new WeakSet<object>();
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #span: Span;
  /** The parent context with the request's span in it. */
  readonly #context: Context;
  readonly #attributes: Attributes;
  readonly #duration: Histogram | undefined;

  constructor(
    api: OtelApi,
    tracer: Tracer,
    span: Span,
    context: Context,
    attributes: Attributes,
    duration: Histogram | undefined,
  ) {
    this.#api = api;
    this.#tracer = tracer;
    this.#span = span;
    this.#context = context;
    this.#attributes = attributes;
    this.#duration = duration;
    this.recording = span.isRecording();
  }

  inRequest<T>(fn: () => T): T {
    return this.#api.context.with(this.#context, fn);
  }

  stage(middleware: ToolMiddleware, entry: { readonly stage: string; readonly extension: string }): ToolMiddleware {
    const api = this.#api;
    const parent = this.#context;
    const attributes = { [ATTR_PIPELINE_STAGE]: entry.stage, [ATTR_EXTENSION]: entry.extension };
    return async (call, ctx, next) => {
      // Every stage span is the request span's child; what the stage itself calls is the stage's.
      const span = this.#tracer.startSpan(`stage ${entry.stage}`, { kind: api.SpanKind.INTERNAL, attributes }, parent);
      try {
        return await api.context.with(api.trace.setSpan(parent, span), () => middleware(call, ctx, next));
      } catch (error) {
        this.#fail(span, { errorType: errorClass(error) }, error);
        throw error;
      } finally {
        span.end();
      }
    };
  }

  /** Ends the request: `error.type` and status on failure, the span ended, the duration recorded. */
  end(outcome: Outcome, thrown: unknown): void {
    if (outcome.errorType !== undefined) this.#fail(this.#span, outcome, thrown);
    this.#span.end();
    this.#duration?.record((performance.now() - this.#started) / 1000, metricAttributes(this.#attributes, outcome));
  }

  #fail(span: Span, outcome: Outcome, thrown: unknown): void {
    if (outcome.errorType === undefined) return;
    markFailed(this.#api, span, outcome);
    if (typeof thrown !== 'object' || thrown === null || this.#recorded.has(thrown)) return;
    this.#recorded.add(thrown);
    try {
      span.recordException(thrown as Error);
    } catch {
      // A thrown value that cannot be read (a proxy, a throwing getter): the span keeps its error.type.
    }
  }
}

/**
 * Starts a server operation, or returns `undefined` when there is nothing
 * to do: no API installed, no tracer provider and no meter provider
 * registered (the common case of an application that has not turned
 * telemetry on, which therefore costs two global lookups), or a span
 * nobody records, no metrics SDK, and no caller's trace context to hand on.
 */
function startOperation(start: OperationStart): Operation | undefined {
  const api = otelApi();
  if (api === undefined) return undefined;
  const duration = serverDurationHistogram(api);
  const registered = coreTracer(api);
  if (registered === undefined && duration === undefined) return undefined;
  // Metrics without traces: the API's own tracer starts non-recording spans, which still carry a caller's context on.
  const tracer = registered ?? api.trace.getTracer(INSTRUMENTATION_SCOPE);
  const parent = parentOf(api, start.meta);
  const attributes = requestAttributes(start);
  const options = { kind: api.SpanKind.SERVER, attributes, links: parent.links };
  const span = tracer.startSpan(operationName(start.method, start.tool), options, parent.context);
  if (!span.isRecording() && duration === undefined && !parent.remote) return undefined;
  return new Operation(api, tracer, span, api.trace.setSpan(parent.context, span), attributes, duration);
}

/**
 * Runs one request as a traced, timed server operation. `run` gets the
 * operation (or `undefined` when there is nothing to record) to wrap its
 * stages; `outcome` says how what it returned or threw went to the client.
 * Not `async` itself: with nothing to record, `run`'s promise is returned as
 * it is, without another promise around it.
 */
export function observeOperation<T>(
  start: OperationStart,
  run: (operation: ServerOperation | undefined) => Promise<T>,
  outcome: (result: T | undefined, error: unknown) => Outcome,
): Promise<T> {
  const operation = startedSafely(() => startOperation(start));
  return operation === undefined ? run(undefined) : observed(operation, run, outcome);
}

function observed<T>(
  operation: Operation,
  run: (operation: ServerOperation | undefined) => Promise<T>,
  outcome: (result: T | undefined, error: unknown) => Outcome,
): Promise<T> {
  return reportingOutcome(
    () => operation.inRequest(() => run(operation)),
    outcome,
    (ended, thrown) => {
      operation.end(ended, thrown);
    },
  );
}
