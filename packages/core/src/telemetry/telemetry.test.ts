import { context, metrics, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { composeServer } from '../pipeline/compose.js';
import { createCallContext, createRequestContext } from '../pipeline/context.js';
import { ErrorCodes, WireError } from '../contract/errors.js';
import type { PipelineStage } from '../contract/stages.js';
import type { ServerExtension } from '../contract/extension.js';
import { silentLogger } from './logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { createTestPair, TEST_LINES, type TestLine } from '../testing/index.js';
import type { ToolResult } from '../contract/types.js';

/** A reader the test collects from on demand. */
class TestMetricReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const exporter = new InMemorySpanExporter();
const reader = new TestMetricReader();

beforeAll(() => {
  // What an application does at start (NodeSDK does the same): one tracer and meter provider, async context, W3C propagation.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});

afterAll(() => {
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

afterEach(() => {
  exporter.reset();
});

/** A demo-like stage: passes the call on, and remembers the trace context the call carried. */
function stage(name: PipelineStage, seen?: { traceparent?: unknown }): ServerExtension {
  return {
    name: `@ext/${name}-probe`,
    side: 'server',
    ids: [`io.github.mcp-ext/${name}-probe`],
    settings: { version: '1.0' },
    stage: name,
    middleware: (call, _ctx, next) => {
      if (seen !== undefined) seen.traceparent = call.meta.traceparent;
      return next();
    },
  };
}

/** A stage that refuses every call with a deliberate JSON-RPC error. */
function refusing(): ServerExtension {
  return {
    ...stage('permissions'),
    middleware: () => Promise.reject(new WireError(ErrorCodes.MissingRequiredClientCapability, 'refused by the test')),
  };
}

const PROTOCOL_VERSIONS: Readonly<Record<TestLine, string>> = {
  v1: '2025-11-25',
  'v2-legacy': '2025-11-25',
  'v2-modern': '2026-07-28',
};

function named(spans: readonly ReadableSpan[], name: string, kind?: SpanKind): ReadableSpan {
  const found = spans.filter((span) => span.name === name && (kind === undefined || span.kind === kind));
  expect(
    found.map((span) => span.name),
    `exactly one span "${name}"`,
  ).toEqual([name]);
  return found[0]!;
}

function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

async function durationPoints(method: string): Promise<{ attributes: Record<string, unknown>; count: number }[]> {
  const { resourceMetrics } = await reader.collect();
  const histogram = resourceMetrics.scopeMetrics
    .filter((scope) => scope.scope.name === '@ext/core')
    .flatMap((scope) => scope.metrics)
    .find((metric) => metric.descriptor.name === 'mcp.server.operation.duration') as HistogramMetricData | undefined;
  expect(histogram?.dataPointType).toBe(DataPointType.HISTOGRAM);
  expect(histogram?.descriptor.unit).toBe('s');
  return (histogram?.dataPoints ?? [])
    .filter((point) => point.attributes['mcp.method.name'] === method)
    .map((point) => ({ attributes: point.attributes, count: point.value.count }));
}

describe.each(TEST_LINES)('telemetry over a real client and server (%s)', (line) => {
  it('joins the client trace: client span > SERVER span `tools/call get_ticket` > one span per stage', async () => {
    const seen: { traceparent?: unknown } = {};
    const pair = await createTestPair({
      line,
      serverExtensions: [stage('errors'), stage('permissions', seen), stage('idempotency')],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool('get_ticket', { inputSchema: z.object({ id: z.string() }) }, ({ id }) => ({
          content: [{ type: 'text', text: id }],
        }));
      },
    });
    try {
      const tracer = trace.getTracer('agent');
      await tracer.startActiveSpan('agent turn', async (span) => {
        await pair.client.callTool('get_ticket', { id: 'T-1' });
        span.end();
      });
    } finally {
      await pair.close();
    }
    const spans = exporter.getFinishedSpans();
    const agent = named(spans, 'agent turn');
    const client = named(spans, 'tools/call get_ticket', SpanKind.CLIENT);
    const server = named(spans, 'tools/call get_ticket', SpanKind.SERVER);
    const stages = ['errors', 'permissions', 'idempotency'].map((name) => named(spans, `stage ${name}`));

    const traceId = agent.spanContext().traceId;
    for (const span of [client, server, ...stages]) expect(span.spanContext().traceId).toBe(traceId);
    expect(parentId(client)).toBe(agent.spanContext().spanId);
    expect(parentId(server)).toBe(client.spanContext().spanId);
    // The server's parent came in params._meta, as W3C trace context.
    expect(seen.traceparent).toBe(`00-${traceId}-${client.spanContext().spanId}-01`);

    expect(server.instrumentationScope.name).toBe('@ext/core');
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_ticket',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': PROTOCOL_VERSIONS[line],
    });
    expect(server.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(server.attributes['error.type']).toBeUndefined();
    // Only the legacy era over HTTP has a session.
    if (line === 'v2-legacy') expect(server.attributes['mcp.session.id']).toEqual(expect.any(String));
    else expect(server.attributes['mcp.session.id']).toBeUndefined();

    for (const [index, span] of stages.entries()) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(parentId(span)).toBe(server.spanContext().spanId);
      expect(span.attributes['mcp_ext.pipeline.stage']).toBe(['errors', 'permissions', 'idempotency'][index]);
      expect(span.attributes['mcp_ext.extension']).toBe(
        `@ext/${['errors', 'permissions', 'idempotency'][index] ?? ''}-probe`,
      );
    }
    // Pipeline order, outermost first.
    const starts = stages.map((span) => span.startTime[0] * 1e9 + span.startTime[1]);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);

    // Cumulative over the file's calls: this line's successful calls are one data point.
    const points = (await durationPoints('tools/call')).filter(
      (point) =>
        point.attributes['mcp.protocol.version'] === PROTOCOL_VERSIONS[line] &&
        point.attributes['error.type'] === undefined,
    );
    expect(points).toHaveLength(1);
    expect(points[0]?.count).toBeGreaterThanOrEqual(1);
    // The span's attributes, less what names one request or session.
    expect(points[0]?.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_ticket',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': PROTOCOL_VERSIONS[line],
    });
  });

  it('marks a tool that throws with error.type `tool_error`, and the exception on the stage it passed through', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [stage('permissions')],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool('get_ticket', {}, () => {
          throw new TypeError('the ticket store is gone');
        });
      },
    });
    let result: ToolResult | undefined;
    try {
      result = await pair.client.callTool('get_ticket', {});
    } finally {
      await pair.close();
    }
    expect(result.isError).toBe(true);
    const spans = exporter.getFinishedSpans();
    const client = named(spans, 'tools/call get_ticket', SpanKind.CLIENT);
    const server = named(spans, 'tools/call get_ticket', SpanKind.SERVER);
    const permissions = named(spans, 'stage permissions');
    expect(server.attributes['error.type']).toBe('tool_error');
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(client.attributes['error.type']).toBe('tool_error');
    expect(permissions.attributes['error.type']).toBe('TypeError');
    expect(permissions.status.code).toBe(SpanStatusCode.ERROR);
    const exceptions = spans.flatMap((span) => span.events.filter((event) => event.name === 'exception'));
    expect(exceptions).toHaveLength(1);
    expect(exceptions[0]?.attributes?.['exception.message']).toBe('the ticket store is gone');

    const failed = (await durationPoints('tools/call')).filter(
      (point) => point.attributes['error.type'] === 'tool_error',
    );
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });

  it('sets error.type and rpc.response.status_code to the JSON-RPC code of a deliberate protocol error', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [refusing()],
      serverOptions: { logger: silentLogger },
      setup: (server) => {
        server.registerTool('get_ticket', {}, () => ({ content: [] }));
      },
    });
    try {
      await expect(pair.client.callTool('get_ticket', {})).rejects.toMatchObject({
        code: ErrorCodes.MissingRequiredClientCapability,
      });
    } finally {
      await pair.close();
    }
    const spans = exporter.getFinishedSpans();
    const server = named(spans, 'tools/call get_ticket', SpanKind.SERVER);
    const client = named(spans, 'tools/call get_ticket', SpanKind.CLIENT);
    for (const span of [server, client]) {
      expect(span.attributes['error.type']).toBe('-32021');
      expect(span.attributes['rpc.response.status_code']).toBe('-32021');
      expect(span.status).toMatchObject({ code: SpanStatusCode.ERROR });
    }
    expect(server.status.message).toBe('refused by the test');
  });

  it('traces an extension method as a SERVER span named after the method, child of the client span', async () => {
    const method = 'io.github.mcp-ext/echo-probe/echo';
    const pair = await createTestPair({
      line,
      serverExtensions: [
        { ...stage('errors'), ids: ['io.github.mcp-ext/echo-probe'], methods: { echo: (params) => ({ ...params }) } },
      ],
      serverOptions: { logger: silentLogger },
    });
    try {
      await trace.getTracer('agent').startActiveSpan('agent turn', async (span) => {
        await pair.client.request(method, { word: 'hi' });
        span.end();
      });
    } finally {
      await pair.close();
    }
    const spans = exporter.getFinishedSpans();
    const client = named(spans, method, SpanKind.CLIENT);
    const server = named(spans, method, SpanKind.SERVER);
    expect(parentId(server)).toBe(client.spanContext().spanId);
    expect(server.attributes['mcp.method.name']).toBe(method);
    expect(server.attributes['gen_ai.tool.name']).toBeUndefined();
  });
});

describe('where the server span takes its parent from', () => {
  const composed = composeServer([stage('errors')], { logger: silentLogger });
  const run = (meta: Record<string, unknown>): Promise<ToolResult> => {
    const request = createRequestContext({
      sdk: 'v2',
      era: 'modern',
      protocolVersion: '2026-07-28',
      authInfo: undefined,
      identity: { principal: 'local', source: 'local' },
      peerExtensions: {},
      negotiation: composed.negotiate({}),
      signal: new AbortController().signal,
      logger: silentLogger,
      store: new MemoryStore(),
      progressToken: undefined,
      notify: () => Promise.resolve(),
      elicit: undefined,
    });
    return composed.runToolCall(
      { name: 'echo', arguments: {}, meta },
      createCallContext(request, { name: 'echo' }),
      () => ({ content: [] }),
    );
  };

  it('prefers the caller context in `_meta` over the ambient one, and links the ambient span', async () => {
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await trace.getTracer('http').startActiveSpan('POST /mcp', { kind: SpanKind.SERVER }, async (span) => {
      await run({ traceparent: caller, tracestate: 'vendor=1' });
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const http = named(spans, 'POST /mcp');
    const server = named(spans, 'tools/call echo');
    expect(server.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentId(server)).toBe('b7ad6b7169203331');
    expect(server.spanContext().traceState?.get('vendor')).toBe('1');
    expect(server.links.map((link) => link.context.spanId)).toEqual([http.spanContext().spanId]);
  });

  it('without trace context in `_meta`, is a child of the ambient span', async () => {
    await trace.getTracer('http').startActiveSpan('POST /mcp', async (span) => {
      await run({ traceparent: 42 });
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    expect(parentId(named(spans, 'tools/call echo'))).toBe(named(spans, 'POST /mcp').spanContext().spanId);
  });

  it('records nothing for a composition with telemetry off', async () => {
    const quiet = composeServer([stage('errors')], { logger: silentLogger, telemetry: false });
    expect(quiet.telemetry).toBe(false);
    const request = createRequestContext({
      sdk: 'v2',
      era: 'modern',
      protocolVersion: '2026-07-28',
      authInfo: undefined,
      identity: { principal: 'local', source: 'local' },
      peerExtensions: {},
      negotiation: quiet.negotiate({}),
      signal: new AbortController().signal,
      logger: silentLogger,
      store: new MemoryStore(),
      progressToken: undefined,
      notify: () => Promise.resolve(),
      elicit: undefined,
    });
    await quiet.runToolCall(
      { name: 'echo', arguments: {}, meta: {} },
      createCallContext(request, { name: 'echo' }),
      () => ({ content: [] }),
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
