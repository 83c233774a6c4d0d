/**
 * The client side of the core's telemetry: each request a client adapter
 * sends is a CLIENT span, whose trace context is written into the request's
 * `params._meta` so the server's span joins the caller's trace.
 */
import type { Context, Span, TextMapSetter } from '@opentelemetry/api';
import { coreTracer, otelApi, type OtelApi } from './otel-api.js';
import { operationName, type Outcome } from './semconv.js';
import { markFailed, operationAttributes, reportingOutcome, startedSafely } from './telemetry.js';

const META_SETTER: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** What a client span is made of. */
export interface ClientCallStart {
  readonly method: string;
  readonly tool?: string | undefined;
  /** `params._meta` about to be sent: the span's context is written into it. */
  readonly meta: Record<string, unknown>;
}

/**
 * Sends a request under a CLIENT span and writes that span's trace context
 * into `params._meta` (through the registered propagator, W3C
 * `traceparent`/`tracestate` by default), so the server's span joins the
 * caller's trace. `send` must send `start.meta` as it is after this call.
 */
export function observeClientCall<T>(
  start: ClientCallStart,
  send: () => Promise<T>,
  outcome: (result: T | undefined, error: unknown) => Outcome,
): Promise<T> {
  const started = startedSafely(() => startClientSpan(start));
  return started === undefined ? send() : sentUnder(started, send, outcome);
}

interface ClientSpan {
  readonly api: OtelApi;
  readonly span: Span;
  readonly context: Context;
}

/** The CLIENT span of a request, its context written into `start.meta`; `undefined` without a registered tracer provider. */
function startClientSpan(start: ClientCallStart): ClientSpan | undefined {
  const api = otelApi();
  const tracer = api === undefined ? undefined : coreTracer(api);
  // No tracer provider registered: no span, and no trace of ours to hand on.
  if (api === undefined || tracer === undefined) return undefined;
  const ambient = api.context.active();
  const attributes = operationAttributes(start.method, start.tool);
  const span = tracer.startSpan(
    operationName(start.method, start.tool),
    { kind: api.SpanKind.CLIENT, attributes },
    ambient,
  );
  const context = api.trace.setSpan(ambient, span);
  api.propagation.inject(context, start.meta, META_SETTER);
  return { api, span, context };
}

function sentUnder<T>(
  client: ClientSpan,
  send: () => Promise<T>,
  outcome: (result: T | undefined, error: unknown) => Outcome,
): Promise<T> {
  return reportingOutcome(
    () => client.api.context.with(client.context, send),
    outcome,
    (ended) => {
      endClientSpan(client.api, client.span, ended);
    },
  );
}

/** `params` with `meta` as its `_meta`, or `params` as they were when `meta` holds nothing (no empty `_meta` on the wire). */
export function paramsWithMeta(
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
): Record<string, unknown> {
  return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
}

function endClientSpan(api: OtelApi, span: Span, outcome: Outcome): void {
  markFailed(api, span, outcome);
  span.end();
}
