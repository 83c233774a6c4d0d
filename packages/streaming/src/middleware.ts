/**
 * The tool-call middleware: reads the operation the client follows, checks
 * a resume against its checkpoint, takes the execution's epoch, sets up the
 * call's stream and marks the result.
 */
import { withResultMeta } from '@ext/core/kit';
import { type ToolMiddleware } from '@ext/core';
import { CallStream } from './call-stream.js';
import { findResume, takeEpoch } from './checkpoint-store.js';
import { argumentsDigest, type CheckpointRecord } from './checkpoints.js';
import { streamSlot } from './locals.js';
import { parseStreamingMeta, readAuthorToolMeta } from './logic.js';
import type { ActiveOperation } from './operation-stream.js';
import type { ResolvedOptions } from './options.js';
import { checkpointsUnsupported, invalidMeta, resumeRefusal } from './refusals.js';
import { STREAMING_ID, type StreamingResultMeta } from './schema.js';

/** The middleware of `streamingServer()` under `config`. */
export function streamingMiddleware(config: ResolvedOptions): ToolMiddleware {
  return async (call, ctx, next) => {
    const toolCheckpoints = readAuthorToolMeta(ctx.tool, STREAMING_ID)?.checkpoints ?? false;
    const negotiated = ctx.negotiated(STREAMING_ID);
    const raw = negotiated === undefined ? undefined : call.meta[negotiated.id];
    if (negotiated === undefined || raw === undefined) {
      streamSlot.set(ctx, new CallStream(ctx, { config, toolCheckpoints, active: undefined }));
      return next();
    }
    const parsed = parseStreamingMeta(raw, negotiated.id);
    if (!parsed.ok) throw invalidMeta(parsed);
    const { operationId, checkpointToken } = parsed.value;
    const digest = argumentsDigest(call.name, call.arguments);
    let resume: CheckpointRecord | undefined;
    if (checkpointToken !== undefined) {
      if (!toolCheckpoints) throw checkpointsUnsupported(call.name, negotiated.id);
      const decision = await findResume(ctx, config, {
        token: checkpointToken,
        operationId,
        tool: call.name,
        argumentsDigest: digest,
        now: config.now(),
      });
      if (decision.kind !== 'resume') throw resumeRefusal(decision, negotiated.id, operationId);
      resume = decision.record;
    }
    // Every execution of a resumable operation takes a new epoch, which fences off any older one still running.
    const epoch = toolCheckpoints ? await takeEpoch(ctx, config, operationId) : undefined;
    const active: ActiveOperation = { id: negotiated.id, operationId, resume, epoch, argumentsDigest: digest };
    streamSlot.set(ctx, new CallStream(ctx, { config, toolCheckpoints, active }));
    const result = await next();
    return withResultMeta(result, negotiated.id, {
      operation_id: operationId,
      resumed: resume !== undefined,
    } satisfies StreamingResultMeta);
  };
}
