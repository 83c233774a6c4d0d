/** The call's stream on `ctx.locals`, and `streamOf(ctx)`, which hands it to the tool handler. */
import { defineLocal, type JsonValue } from '@ext/core/kit';
import { type CallContext } from '@ext/core';
import { CallStream } from './call-stream.js';
import type { OperationStream } from './operation-stream.js';

/** Keyed by `Symbol.for`, so duplicate copies of this package agree on the slot; its contract is the interface. */
export const streamSlot = defineLocal<OperationStream>('streaming/stream');

/**
 * The handler's streaming helper for the current call: progress, partial
 * results, ordered chunks, checkpoints, the resume state and the abort
 * signal. Safe to call whether or not the server composes
 * `streamingServer()` and whether or not the client negotiated it.
 *
 * @example
 * ```ts
 * server.registerTool('export_rows', { inputSchema, _meta: { [STREAMING_ID]: { checkpoints: true } } }, async ({ table }, ctx) => {
 *   const stream = streamOf<{ next: number }>(ctx);
 *   let next = stream.resumeState?.next ?? 0;
 *   for (; next < total; next += 1) {
 *     stream.signal.throwIfAborted();
 *     await stream.chunk(await readRow(table, next), { checkpoint: { next: next + 1 } });
 *     await stream.progress(next + 1, total, `row ${next + 1} of ${total}`);
 *   }
 *   return { content: [{ type: 'text', text: `exported ${total} rows` }] };
 * });
 * ```
 */
export function streamOf<S extends JsonValue = JsonValue>(ctx: CallContext): OperationStream<S> {
  // Not `instanceof`: the middleware may come from another copy of this package; the slot's contract is the interface.
  const existing = streamSlot.get(ctx);
  if (existing !== undefined) return existing as unknown as OperationStream<S>;
  // Without the server half: plain MCP progress only.
  const stream = new CallStream(ctx, { config: undefined, toolCheckpoints: undefined, active: undefined });
  streamSlot.set(ctx, stream);
  return stream as unknown as OperationStream<S>;
}
