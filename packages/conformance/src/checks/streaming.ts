/** The streaming suite: the checks of a server that advertises `io.github.mcp-ext/streaming`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure, freshId } from '../assert.js';
import type { ExtensionSuite } from '../types.js';
import { detailsOf, expectToolRefusal, resultMeta, withErrors } from './methods.js';

export { STREAMING_ID } from './streaming-follow.js';
import {
  STREAMING_ID,
  declaration,
  refusalTarget,
  follow,
  followedCall,
  followedToken,
  resumedChunkProblems,
  unfollowed,
} from './streaming-follow.js';

export const streamingSuite: ExtensionSuite = {
  extension: 'streaming',
  ids: [STREAMING_ID],
  spec: 'packages/streaming/SPEC.md',
  checks: [
    {
      id: 'streaming/settings',
      requirement: 'STRM-1',
      level: 'MUST',
      title: 'settings carry an integer checkpoint_ttl_seconds',
      run(ctx) {
        const ttl = ctx.settings.checkpoint_ttl_seconds;
        ensure(Number.isSafeInteger(ttl) && (ttl as number) >= 1, `checkpoint_ttl_seconds is ${describe(ttl)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'streaming/tool-meta',
      requirement: 'STRM-3',
      level: 'MUST',
      title: 'a tool entry _meta[id] is an object whose checkpoints, when present, is a boolean',
      run(ctx) {
        const problems = ctx.server.tools.flatMap((tool) => {
          const meta = tool._meta?.[ctx.id ?? STREAMING_ID];
          if (meta === undefined) return [];
          if (!isRecord(meta)) return [`${tool.name}: ${describe(meta)}`];
          return meta.checkpoints === undefined || typeof meta.checkpoints === 'boolean'
            ? []
            : [`${tool.name}: checkpoints ${describe(meta.checkpoints)}`];
        });
        ensure(problems.length === 0, problems.join('; '));
        return Promise.resolve();
      },
    },
    {
      id: 'streaming/malformed-entry',
      requirement: 'STRM-4',
      level: 'MUST',
      title:
        'an entry that is not an object, or a malformed operation_id or checkpoint_token, is refused as invalid_input INVALID_INPUT naming the field, before the tool runs',
      async run(ctx) {
        const target =
          refusalTarget(ctx, (tool) => declaration(ctx, tool) !== undefined) ?? refusalTarget(ctx, () => true);
        if (target === undefined) return ctx.skip('no tool whose arguments the kit can build');
        const probe = await ctx.connect(withErrors(ctx, STREAMING_ID));
        const id = ctx.id ?? STREAMING_ID;
        const entryPointer = `/_meta/${id.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        const cases = [
          { entry: 'not-an-object', field: id, pointer: entryPointer },
          { entry: { operation_id: 'not a valid operation id!' }, field: 'operation_id' },
          { entry: { operation_id: freshId('conformance'), checkpoint_token: '' }, field: 'checkpoint_token' },
        ].map((item) => ({ ...item, pointer: item.pointer ?? `${entryPointer}/${item.field}` }));
        for (const { entry, field, pointer } of cases) {
          const result = await probe.callTool(target.tool.name, target.args, { [ctx.id ?? STREAMING_ID]: entry });
          const structured = expectToolRefusal(ctx, result, {
            category: 'invalid_input',
            code: 'INVALID_INPUT',
            what: `${target.tool.name} with ${describe(entry)}`,
          });
          if (structured === undefined) continue;
          const details = detailsOf(structured);
          ensure(details.field === field, `details.field is ${describe(details.field)}, expected "${field}"`);
          ensure(details.pointer === pointer, `details.pointer is ${describe(details.pointer)}, expected "${pointer}"`);
        }
      },
    },
    {
      id: 'streaming/progress-shape',
      requirement: 'STRM-7',
      level: 'MUST',
      title:
        'progress of a followed call arrives as notifications/<id>/progress valid against the seed ProgressNotification, with a fraction in [0, 1]',
      async run(ctx) {
        const call = await followedCall(ctx);
        if (call.progress.length === 0)
          return ctx.skip(`${call.candidate.tool.name} reported no progress with sample arguments`);
        for (const [index, params] of call.progress.entries()) {
          const { _meta: _ignored, ...payload } = params;
          ctx.expectSeedShape(payload, 'streaming', 'ProgressNotification', `progress notification ${String(index)}`);
        }
      },
    },
    {
      id: 'streaming/chunk-order',
      requirement: 'STRM-9',
      level: 'MUST',
      title:
        'chunks are seed StreamChunks numbered 0, 1, 2... the last with is_final, none after it nor after the result',
      async run(ctx) {
        const call = await followedCall(ctx);
        if (call.chunks.length === 0)
          return ctx.skip(`${call.candidate.tool.name} sent no chunk with sample arguments`);
        for (const [index, params] of call.chunks.entries()) {
          const { _meta: _ignored, ...payload } = params;
          ctx.expectSeedShape(payload, 'streaming', 'StreamChunk', `chunk ${String(index)}`);
          ensure(params.sequence === index, `chunk ${String(index)} has sequence ${describe(params.sequence)}`);
          const last = index === call.chunks.length - 1;
          ensure(
            params.is_final === last,
            `chunk ${String(index)} of ${String(call.chunks.length)} has is_final ${describe(params.is_final)}`,
          );
        }
        ensure(call.late.length === 0, `notifications arrived after the result: ${call.late.join(', ')}`);
      },
    },
    {
      id: 'streaming/result-meta',
      requirement: 'STRM-5',
      level: 'MUST',
      title: 'the result of a followed call carries _meta[id] = { operation_id, resumed: false }',
      async run(ctx) {
        const call = await followedCall(ctx);
        const meta = resultMeta(call.result, ctx.id);
        ensure(
          meta !== undefined,
          `the result has no _meta[${ctx.id ?? STREAMING_ID}]: ${describe(call.result._meta)}`,
        );
        ensure(
          meta.operation_id === call.operationId,
          `operation_id is ${describe(meta.operation_id)}, expected "${call.operationId}"`,
        );
        ensure(meta.resumed === false, `resumed is ${describe(meta.resumed)} for a call that resumed nothing`);
      },
    },
    {
      id: 'streaming/not-negotiated',
      requirement: 'STRM-2',
      level: 'MUST',
      title:
        'a client that did not negotiate gets no streaming notification and no result._meta[id], even when it sends an entry',
      async run(ctx) {
        const { candidate } = await followedCall(ctx);
        const call = await follow(ctx, await ctx.connect({}), candidate);
        ensure(
          call.progress.length + call.chunks.length + call.late.length === 0,
          `sent ${String(call.progress.length)} progress and ${String(call.chunks.length)} chunk notifications`,
        );
        ensure(
          resultMeta(call.result, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? STREAMING_ID}: ${describe(call.result._meta)}`,
        );
      },
    },
    {
      id: 'streaming/unknown-major',
      requirement: 'STRM-1',
      level: 'MUST',
      title:
        'a client advertising an unknown major version is not negotiated: no streaming notification, no result._meta[id]',
      async run(ctx) {
        const { candidate } = await followedCall(ctx);
        const probe = await ctx.connect({ extensions: { [ctx.id ?? STREAMING_ID]: { version: '99.0' } } });
        const call = await follow(ctx, probe, candidate);
        ensure(
          call.progress.length + call.chunks.length + call.late.length === 0,
          `sent ${String(call.progress.length)} progress and ${String(call.chunks.length)} chunk notifications to a client of version 99.0`,
        );
        ensure(
          resultMeta(call.result, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? STREAMING_ID} for a client of version 99.0: ${describe(call.result._meta)}`,
        );
      },
    },
    {
      id: 'streaming/no-entry',
      requirement: 'STRM-2',
      level: 'MUST',
      title:
        'a call without params._meta[id] from a client that negotiated gets no streaming notification and no result._meta[id]',
      async run(ctx) {
        const { candidate } = await followedCall(ctx);
        const call = await unfollowed(ctx, await ctx.connect(withErrors(ctx, STREAMING_ID)), candidate);
        ensure(call.notifications === 0, `sent ${String(call.notifications)} streaming notifications`);
        ensure(
          resultMeta(call.result, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? STREAMING_ID}: ${describe(call.result._meta)}`,
        );
      },
    },
    {
      id: 'streaming/unknown-checkpoint',
      requirement: 'STRM-14',
      level: 'MUST',
      title:
        'a checkpoint_token the server never issued is refused as invalid_input CHECKPOINT_NOT_FOUND, before the tool runs',
      async run(ctx) {
        const target = refusalTarget(ctx, (tool) => declaration(ctx, tool)?.checkpoints === true);
        if (target === undefined)
          return ctx.skip('no tool declares checkpoints: true with arguments the kit can build');
        const probe = await ctx.connect(withErrors(ctx, STREAMING_ID));
        const entry = {
          operation_id: freshId('conformance'),
          checkpoint_token: `conformance-forged-${freshId('token')}`,
        };
        const result = await probe.callTool(target.tool.name, target.args, { [ctx.id ?? STREAMING_ID]: entry });
        expectToolRefusal(ctx, result, {
          category: 'invalid_input',
          code: 'CHECKPOINT_NOT_FOUND',
          what: `${target.tool.name} with a forged checkpoint_token`,
        });
      },
    },
    {
      id: 'streaming/resume',
      requirement: 'STRM-12',
      level: 'MUST',
      title:
        'a call carrying a checkpoint_token the followed call handed out resumes: resumed: true, chunks continuing after the checkpoint',
      async run(ctx) {
        const { call, issued } = await followedToken(ctx);
        const probe = await ctx.connect(withErrors(ctx, STREAMING_ID));
        const entry = { operation_id: call.operationId, checkpoint_token: issued.token };
        const resumed = await follow(ctx, probe, call.candidate, entry);
        ensure(resumed.result.isError !== true, `the resume was refused: ${describe(resumed.result)}`);
        const meta = resultMeta(resumed.result, ctx.id);
        ensure(
          meta?.resumed === true,
          `result._meta[${ctx.id ?? STREAMING_ID}] is ${describe(meta)}, not resumed: true`,
        );
        const problems = resumedChunkProblems(resumed.chunks, issued.nextSequence);
        ensure(problems.length === 0, problems.join('; '));
      },
    },
    {
      id: 'streaming/checkpoint-mismatch',
      requirement: 'STRM-14',
      level: 'MUST',
      title:
        'a checkpoint_token sent with another operation_id is refused as invalid_input CHECKPOINT_MISMATCH naming operation_id, before the tool runs',
      async run(ctx) {
        const { call, issued } = await followedToken(ctx);
        const probe = await ctx.connect(withErrors(ctx, STREAMING_ID));
        const entry = { operation_id: freshId('conformance'), checkpoint_token: issued.token };
        const result = await probe.callTool(call.candidate.tool.name, call.candidate.args, {
          [ctx.id ?? STREAMING_ID]: entry,
        });
        const structured = expectToolRefusal(ctx, result, {
          category: 'invalid_input',
          code: 'CHECKPOINT_MISMATCH',
          what: `${call.candidate.tool.name} with a checkpoint_token of another operation`,
        });
        const field = detailsOf(structured).field;
        if (structured !== undefined)
          ensure(field === 'operation_id', `details.field is ${describe(field)}, expected "operation_id"`);
      },
    },
    {
      id: 'streaming/checkpoints-unsupported',
      requirement: 'STRM-15',
      level: 'MUST',
      title: 'a checkpoint_token for a tool without checkpoints is refused as invalid_input CHECKPOINTS_UNSUPPORTED',
      async run(ctx) {
        const target = refusalTarget(ctx, (tool) => declaration(ctx, tool)?.checkpoints !== true);
        if (target === undefined) return ctx.skip('every tool declares checkpoints');
        const probe = await ctx.connect(withErrors(ctx, STREAMING_ID));
        const entry = { operation_id: freshId('conformance'), checkpoint_token: 'conformance-token' };
        const result = await probe.callTool(target.tool.name, target.args, { [ctx.id ?? STREAMING_ID]: entry });
        expectToolRefusal(ctx, result, {
          category: 'invalid_input',
          code: 'CHECKPOINTS_UNSUPPORTED',
          what: `${target.tool.name} with a checkpoint_token`,
        });
      },
    },
  ],
};
