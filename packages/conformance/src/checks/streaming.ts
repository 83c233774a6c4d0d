/** The streaming suite: the checks of a server that advertises `io.github.mcp-ext/streaming`. */
import { isRecord } from '@ext/core';
import { describe, ensure, freshId } from '../assert.js';
import type { Probe } from '../probe.js';
import { safeTools, sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool, ServerFacts } from '../types.js';
import { detailsOf, expectToolRefusal, resultMeta, withErrors } from './methods.js';

export const STREAMING_ID = 'io.github.mcp-ext/streaming';

interface Candidate {
  readonly tool: ListedTool;
  readonly args: Record<string, unknown>;
}

/** What one followed call produced: its notifications in arrival order, and its result. */
interface FollowedCall {
  readonly candidate: Candidate;
  readonly operationId: string;
  readonly progress: Record<string, unknown>[];
  readonly chunks: Record<string, unknown>[];
  /** Notifications of the operation that arrived after its result. */
  readonly late: string[];
  readonly result: Record<string, unknown>;
}

function declaration(ctx: CheckContext, tool: ListedTool): Record<string, unknown> | undefined {
  const meta = tool._meta?.[ctx.id ?? STREAMING_ID];
  return isRecord(meta) ? meta : undefined;
}

/** Tools the kit may execute: declared streaming tools, read-only ones first, others only with effects allowed. */
function streamingCandidates(ctx: CheckContext): Candidate[] {
  const declared = ctx.server.tools.filter((tool) => declaration(ctx, tool) !== undefined);
  const safe = safeTools(declared);
  if (!ctx.allowEffects) return safe;
  const others = declared
    .filter((tool) => !safe.some((entry) => entry.tool === tool))
    .flatMap((tool) => {
      const args = sampleArguments(tool);
      return args === undefined ? [] : [{ tool, args }];
    });
  return [...safe, ...others];
}

/** A tool a refusal check may call (a conforming server refuses before running it): read-only ones first. */
function refusalTarget(ctx: CheckContext, wanted: (tool: ListedTool) => boolean): Candidate | undefined {
  const tools = ctx.server.tools.filter(wanted);
  const safe = safeTools(tools);
  if (safe[0] !== undefined) return safe[0];
  for (const tool of tools) {
    const args = sampleArguments(tool);
    if (args !== undefined) return { tool, args };
  }
  return undefined;
}

function notificationMethod(ctx: CheckContext, event: 'progress' | 'chunk'): string {
  return `notifications/${ctx.id ?? STREAMING_ID}/${event}`;
}

/** The `params._meta[id]` entry of a followed call. */
interface FollowEntry {
  readonly operation_id: string;
  readonly checkpoint_token?: string | undefined;
}

/** Calls `candidate` following an operation (a fresh one by default) on `probe`, recording its notifications. */
async function follow(
  ctx: CheckContext,
  probe: Probe,
  candidate: Candidate,
  entry: FollowEntry = { operation_id: freshId('conformance') },
): Promise<FollowedCall> {
  const operationId = entry.operation_id;
  const progress: Record<string, unknown>[] = [];
  const chunks: Record<string, unknown>[] = [];
  const late: string[] = [];
  let answered = false;
  const collect = (into: Record<string, unknown>[], event: string) => (params: Record<string, unknown>) => {
    if (params.operation_id !== operationId) return;
    if (answered) late.push(event);
    else into.push(params);
  };
  probe.onNotification(notificationMethod(ctx, 'progress'), collect(progress, 'progress'));
  probe.onNotification(notificationMethod(ctx, 'chunk'), collect(chunks, 'chunk'));
  const result = await probe.callTool(candidate.tool.name, candidate.args, { [ctx.id ?? STREAMING_ID]: entry });
  answered = true;
  // Let notifications the server wrongly sent after the result reach the handlers.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { candidate, operationId, progress, chunks, late, result };
}

const followed = new WeakMap<ServerFacts, Promise<FollowedCall>>();

/** The run's one followed call of a streaming tool, shared by the checks that read it. */
function followedCall(ctx: CheckContext): Promise<FollowedCall> {
  let call = followed.get(ctx.server);
  if (call === undefined) {
    call = (async () => {
      const candidate = streamingCandidates(ctx)[0];
      if (candidate === undefined) {
        return ctx.skip(
          ctx.allowEffects
            ? 'no tool declares _meta[id] with arguments the kit can build'
            : 'no read-only tool declares _meta[id]: run with --allow-effects to call the others',
        );
      }
      return follow(ctx, await ctx.connect(withErrors(ctx, STREAMING_ID)), candidate);
    })();
    followed.set(ctx.server, call);
  }
  return call;
}

/** A checkpoint token the followed call handed out, and the sequence its resume must continue at (when known). */
interface IssuedToken {
  readonly token: string;
  readonly nextSequence: number | undefined;
}

/** The first token on a chunk (its resume continues after that chunk), else the first on a progress notification. */
function issuedToken(call: FollowedCall): IssuedToken | undefined {
  const chunk = call.chunks.find((params) => typeof params.checkpoint_token === 'string');
  if (chunk !== undefined) return { token: String(chunk.checkpoint_token), nextSequence: Number(chunk.sequence) + 1 };
  const progress = call.progress.find((params) => typeof params.checkpoint_token === 'string');
  return progress === undefined ? undefined : { token: String(progress.checkpoint_token), nextSequence: undefined };
}

/** The followed call's first checkpoint token, or the check is skipped. */
async function followedToken(ctx: CheckContext): Promise<{ call: FollowedCall; issued: IssuedToken }> {
  const call = await followedCall(ctx);
  const issued = issuedToken(call);
  if (issued === undefined)
    return ctx.skip(`${call.candidate.tool.name} handed out no checkpoint_token with sample arguments`);
  return { call, issued };
}

/** Why the chunks of a resumed call do not continue the operation at `first` (when known), one by one. */
function resumedChunkProblems(chunks: readonly Record<string, unknown>[], first: number | undefined): string[] {
  const start = first ?? Number(chunks[0]?.sequence);
  return chunks.flatMap((params, index) =>
    params.sequence === start + index
      ? []
      : [`resumed chunk ${String(index)} has sequence ${describe(params.sequence)}, expected ${String(start + index)}`],
  );
}

/** Calls `candidate` on `probe` without any streaming entry, counting every streaming notification meanwhile. */
async function unfollowed(
  ctx: CheckContext,
  probe: Probe,
  candidate: Candidate,
): Promise<{ notifications: number; result: Record<string, unknown> }> {
  let counting = true;
  let notifications = 0;
  const count = () => {
    if (counting) notifications += 1;
  };
  probe.onNotification(notificationMethod(ctx, 'progress'), count);
  probe.onNotification(notificationMethod(ctx, 'chunk'), count);
  const result = await probe.callTool(candidate.tool.name, candidate.args);
  await new Promise((resolve) => setTimeout(resolve, 20));
  counting = false;
  return { notifications, result };
}

/** `@ext/streaming` (SPEC: packages/streaming/SPEC.md). */
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
