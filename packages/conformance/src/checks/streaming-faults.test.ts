import { composeServer, ExtensionError, MemoryStore, type ServerExtension } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { errorsServer } from '@ext/errors/server';
import { streamingServer, streamOf } from '@ext/streaming/server';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, type RunOutcome } from '../runner.js';

const STRM_ID = 'io.github.mcp-ext/streaming';
const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25'] as const;

type Fault = (streaming: ServerExtension) => ServerExtension;
type Middleware = NonNullable<ServerExtension['middleware']>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * A real MCP server over HTTP composed with errors and streaming: `scan`
 * streams three checkpointed steps, `lookup` does not stream. `fault`
 * rewires the streaming extension.
 */
async function serve(fault: Fault = (streaming) => streaming): Promise<string> {
  const composed = composeServer([errorsServer(), fault(streamingServer())]);
  const store = new MemoryStore();
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer({ name: 'streaming-under-test', version: '1.0.0' });
      const server = extendServer(mcp, composed, { store });
      server.registerTool(
        'scan',
        { annotations: { readOnlyHint: true }, _meta: { [STRM_ID]: { checkpoints: true } } },
        async (_args, ctx) => {
          const stream = streamOf<{ next: number }>(ctx);
          for (let step = stream.resumeState?.next ?? 0; step < 3; step += 1) {
            await stream.progress(step + 1, 3, `step ${String(step + 1)}`);
            await stream.chunk({ step }, { checkpoint: { next: step + 1 }, final: step === 2 });
          }
          return { content: [{ type: 'text', text: 'scanned' }] };
        },
      );
      server.registerTool('lookup', { annotations: { readOnlyHint: true } }, () => ({
        content: [{ type: 'text', text: 'found' }],
      }));
      return mcp;
    },
    { identify: () => 'conformance-kit' },
  );
  const listening = await listen(handler, { port: 0 });
  closers.push(() => listening.close());
  return String(listening.url);
}

function run(url: string, protocolVersion: string = PROTOCOL_VERSIONS[0]): Promise<RunOutcome> {
  return runConformance({ target: { kind: 'http', url }, protocolVersion, extensions: ['streaming'] });
}

const statusOf = (outcome: RunOutcome, status: string): string[] =>
  outcome.results.filter((result) => result.status === status).map((result) => result.id);

/** The streaming middleware, run with `middleware` in front of it. */
function inFront(wrap: (inner: Middleware) => Middleware): Fault {
  return (streaming) => ({ ...streaming, middleware: wrap(streaming.middleware!) });
}

function entryMeta(result: { _meta?: Record<string, unknown> | undefined }): Record<string, unknown> | undefined {
  const entry = result._meta?.[STRM_ID];
  return isRecord(entry) ? entry : undefined;
}

/** Planted faults, each with the checks it must make fail (and nothing else). */
const FAULTS: Record<string, { fault: Fault; fails: string[] }> = {
  'numbers chunks from 1': {
    fault: inFront((inner) => (call, ctx, next) => {
      const notify: typeof ctx.notify = (method, params) =>
        ctx.notify(method, method.endsWith('/chunk') ? { ...params, sequence: Number(params?.sequence) + 1 } : params);
      return inner(call, { ...ctx, notify }, next);
    }),
    fails: ['streaming/chunk-order'],
  },
  'numbers the chunks of a resume from 0 again': {
    fault: inFront((inner) => (call, ctx, next) => {
      const entry = call.meta[STRM_ID];
      if (!isRecord(entry) || entry.checkpoint_token === undefined) return inner(call, ctx, next);
      let sequence = 0;
      const notify: typeof ctx.notify = (method, params) =>
        ctx.notify(method, method.endsWith('/chunk') ? { ...params, sequence: sequence++ } : params);
      return inner(call, { ...ctx, notify }, next);
    }),
    fails: ['streaming/resume'],
  },
  'reports resumed: false on a resume': {
    fault: inFront((inner) => async (call, ctx, next) => {
      const result = await inner(call, ctx, next);
      const entry = entryMeta(result);
      return entry === undefined
        ? result
        : { ...result, _meta: { ...result._meta, [STRM_ID]: { ...entry, resumed: false } } };
    }),
    fails: ['streaming/resume'],
  },
  'marks results of calls that carry no entry': {
    fault: inFront((inner) => async (call, ctx, next) => {
      const result = await inner(call, ctx, next);
      if (STRM_ID in call.meta || ctx.negotiated(STRM_ID) === undefined) return result;
      return { ...result, _meta: { ...result._meta, [STRM_ID]: { operation_id: 'none', resumed: false } } };
    }),
    fails: ['streaming/no-entry'],
  },
  'treats a client of an unknown major version as negotiated': {
    fault: inFront((inner) => (call, ctx, next) => {
      const advertised = ctx.peerExtensions?.[STRM_ID];
      const negotiated = ((id: string) =>
        ctx.negotiated(id) ??
        (id === STRM_ID && isRecord(advertised) ? { id, settings: advertised } : undefined)) as typeof ctx.negotiated;
      return inner(call, { ...ctx, negotiated }, next);
    }),
    fails: ['streaming/unknown-major'],
  },
  'reports a checkpoint of another operation as not found': {
    fault: inFront((inner) => async (call, ctx, next) => {
      try {
        return await inner(call, ctx, next);
      } catch (error) {
        if (!(error instanceof ExtensionError) || error.code !== 'CHECKPOINT_MISMATCH') throw error;
        throw new ExtensionError('invalid_input', 'CHECKPOINT_NOT_FOUND', 'No such checkpoint');
      }
    }),
    fails: ['streaming/checkpoint-mismatch'],
  },
  'blames operation_id for an entry that is not an object': {
    fault: inFront((inner) => (call, ctx, next) => {
      const entry = call.meta[STRM_ID];
      return inner(
        entry === undefined || isRecord(entry) ? call : { ...call, meta: { ...call.meta, [STRM_ID]: {} } },
        ctx,
        next,
      );
    }),
    fails: ['streaming/malformed-entry'],
  },
};

describe('the streaming suite against a server composed with @ext/streaming over HTTP', () => {
  it.each(PROTOCOL_VERSIONS)('passes every check on %s', async (protocolVersion) => {
    const outcome = await run(await serve(), protocolVersion);
    expect(outcome.results.filter((result) => result.status !== 'passed')).toEqual([]);
    expect(statusOf(outcome, 'passed')).toEqual(
      expect.arrayContaining([
        'streaming/unknown-major',
        'streaming/no-entry',
        'streaming/resume',
        'streaming/checkpoint-mismatch',
      ]),
    );
    expect(outcome.exitCode).toBe(0);
  });

  it.each(Object.entries(FAULTS))('fails exactly the checks a planted fault breaks: %s', async (_name, planted) => {
    const outcome = await run(await serve(planted.fault));
    expect(statusOf(outcome, 'error')).toEqual([]);
    expect(statusOf(outcome, 'failed').sort()).toEqual([...planted.fails].sort());
    expect(outcome.exitCode).toBe(1);
  });
});
