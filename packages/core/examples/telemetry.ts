/** The README's OpenTelemetry set-up: providers and a propagator registered globally, where the core reports. */
// #region telemetry
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

// Once, at start: what NodeSDK's start() registers, with the exporter and reader of your choice.
export function startTelemetry(traceExporter: SpanExporter, metricReader: MetricReader) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()); // spans follow async calls
  propagation.setGlobalPropagator(new W3CTraceContextPropagator()); // traceparent / tracestate in params._meta
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(traceExporter)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [metricReader] }));
}
// #endregion telemetry
