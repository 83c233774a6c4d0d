/**
 * What the streaming checks do with a server: find the tools to call,
 * follow a call with an operation id and collect its notifications, and
 * read the checkpoint tokens it issues.
 */
import { isRecord } from '@ext/core/kit';
import { describe, freshId } from '../assert.js';
import type { Probe } from '../probe.js';
import { safeTools, sampleArguments } from '../tools.js';
import type { CheckContext, ListedTool, ServerFacts } from '../types.js';
import { withErrors } from './methods.js';

/** The extension's identifier. */
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

export function declaration(ctx: CheckContext, tool: ListedTool): Record<string, unknown> | undefined {
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
export function refusalTarget(ctx: CheckContext, wanted: (tool: ListedTool) => boolean): Candidate | undefined {
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
export async function follow(
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

export const followed = new WeakMap<ServerFacts, Promise<FollowedCall>>();

/** The run's one followed call of a streaming tool, shared by the checks that read it. */
export function followedCall(ctx: CheckContext): Promise<FollowedCall> {
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
export async function followedToken(ctx: CheckContext): Promise<{ call: FollowedCall; issued: IssuedToken }> {
  const call = await followedCall(ctx);
  const issued = issuedToken(call);
  if (issued === undefined)
    return ctx.skip(`${call.candidate.tool.name} handed out no checkpoint_token with sample arguments`);
  return { call, issued };
}

/** Why the chunks of a resumed call do not continue the operation at `first` (when known), one by one. */
export function resumedChunkProblems(chunks: readonly Record<string, unknown>[], first: number | undefined): string[] {
  const start = first ?? Number(chunks[0]?.sequence);
  return chunks.flatMap((params, index) =>
    params.sequence === start + index
      ? []
      : [`resumed chunk ${String(index)} has sequence ${describe(params.sequence)}, expected ${String(start + index)}`],
  );
}

/** Calls `candidate` on `probe` without any streaming entry, counting every streaming notification meanwhile. */
export async function unfollowed(
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
