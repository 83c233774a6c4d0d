/**
 * One demo `tools/call`, traced: the OpenTelemetry SDK (in-memory exporter)
 * registered as an application would, a client inside a span of its own,
 * the tracker over real HTTP. The trace shows the client's span, the
 * server's request span as its child (the trace context travels in
 * `params._meta`), and one span per pipeline stage under the request span.
 */
import { context, propagation, trace, SpanKind, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { silentLogger } from '@ext/core/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Era } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const exporter = new InMemorySpanExporter();

function only(spans: readonly ReadableSpan[], name: string, kind: SpanKind): ReadableSpan {
  const found = spans.filter((span) => span.name === name && span.kind === kind);
  expect(found, `exactly one ${SpanKind[kind]} span "${name}"`).toHaveLength(1);
  return found[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe('a demo tools/call, traced with OpenTelemetry', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    running = await startHttpServer({ port: 0, logger: silentLogger });
  });

  afterAll(async () => {
    await running.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  for (const era of ['modern', 'legacy'] as const satisfies readonly Era[]) {
    it(`joins the client's trace on the ${era} era: agent span > client span > request span > stage spans`, async () => {
      exporter.reset();
      const connection = await connect(running.as('alice'), { era });
      try {
        await trace.getTracer('demo-agent').startActiveSpan('agent turn', async (span: Span) => {
          const result = await connection.extended!.callTool('create_ticket', { title: 'Traced' });
          expect(result.isError).toBeUndefined();
          span.end();
        });
      } finally {
        await connection.close();
      }
      const spans = exporter.getFinishedSpans();
      const agent = only(spans, 'agent turn', SpanKind.INTERNAL);
      const client = only(spans, 'tools/call create_ticket', SpanKind.CLIENT);
      const server = only(spans, 'tools/call create_ticket', SpanKind.SERVER);
      const traceId = agent.spanContext().traceId;
      expect(parentOf(client)).toBe(agent.spanContext().spanId);
      expect(parentOf(server)).toBe(client.spanContext().spanId);
      expect(server.spanContext().traceId).toBe(traceId);
      expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'create_ticket' });
      const stages = spans.filter(
        (span) => parentOf(span) === server.spanContext().spanId && span.name.startsWith('stage '),
      );
      // One span per stage of the tracker's pipeline, each once, each a child of the request span.
      const pipeline = running.composed.pipeline.map((entry) => entry.stage);
      expect(stages.map((span) => span.attributes['mcp_ext.pipeline.stage']).sort()).toEqual([...pipeline].sort());
      expect(stages.length).toBeGreaterThanOrEqual(10);
      for (const span of stages) expect(span.spanContext().traceId).toBe(traceId);
    });
  }
});
