/** `@opentelemetry/api`, loaded when installed, and the core's tracer and duration histogram from its global providers. */
import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';
import type { Histogram, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';

/** `@opentelemetry/api`, an optional peer dependency of this package. */
export type OtelApi = typeof OtelApiModule;

/** The instrumentation scope the core's spans and metrics are reported under. */
export const INSTRUMENTATION_SCOPE = '@ext/core';

/** The metric of the MCP semantic conventions for a request as the server saw it. */
export const SERVER_DURATION_METRIC = 'mcp.server.operation.duration';

/** The bucket boundaries (seconds) the MCP semantic conventions advise for the operation duration. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

// undefined: not tried yet; null: not installed.
let loaded: OtelApi | null | undefined;

/**
 * `@opentelemetry/api` if the application installed it, else `undefined`.
 * Loaded synchronously on first use, so the first request is traced like
 * every other and nothing is loaded by importing the core. The CommonJS
 * build is loaded, which is fine: the API keeps its registered providers
 * on a global shared by its CommonJS and ESM builds.
 */
export function otelApi(): OtelApi | undefined {
  if (loaded === undefined) loaded = load();
  return loaded ?? undefined;
}

function load(): OtelApi | null {
  try {
    return createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  } catch {
    // Not installed (an optional peer): the core runs without telemetry.
    return null;
  }
}

let tracerCache: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;
// What a ProxyTracerProvider of this copy of the API delegates to while no SDK is registered.
let noopTracerProvider: TracerProvider | undefined;

/**
 * The core's tracer from the global tracer provider, or `undefined` while no
 * tracer provider is registered (every span would be a no-op): the caller
 * then skips tracing altogether. Remembered per provider, so a provider
 * registered (or disabled) later is picked up on the next call, and the
 * per-call cost is a global lookup.
 */
export function coreTracer(api: OtelApi): Tracer | undefined {
  const provider = api.trace.getTracerProvider();
  // The one way the 1.x API tells "nothing registered" without starting a span (deprecated for 2.x only; the peer range is ^1.9).
  /* eslint-disable @typescript-eslint/no-deprecated */
  if (provider instanceof api.ProxyTracerProvider) {
    noopTracerProvider ??= new api.ProxyTracerProvider().getDelegate();
    if (provider.getDelegate() === noopTracerProvider) return undefined;
  }
  /* eslint-enable @typescript-eslint/no-deprecated */
  if (tracerCache?.provider !== provider) tracerCache = { provider, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) };
  return tracerCache.tracer;
}

let histogramCache: { readonly provider: MeterProvider; readonly histogram: Histogram | undefined } | undefined;

/**
 * The `mcp.server.operation.duration` histogram of the global meter
 * provider, or `undefined` while no metrics SDK is registered (the no-op
 * meter): the caller then skips timing altogether.
 */
export function serverDurationHistogram(api: OtelApi): Histogram | undefined {
  const provider = api.metrics.getMeterProvider();
  if (histogramCache?.provider !== provider) histogramCache = { provider, histogram: createHistogram(api, provider) };
  return histogramCache.histogram;
}

function createHistogram(api: OtelApi, provider: MeterProvider): Histogram | undefined {
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  if (meter === api.createNoopMeter()) return undefined;
  return meter.createHistogram(SERVER_DURATION_METRIC, {
    unit: 's',
    description:
      'MCP request duration as observed on the receiver from the time it was received until the result is sent.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
}
