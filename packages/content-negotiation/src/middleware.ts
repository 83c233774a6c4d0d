/**
 * The tool-call side of the server half: each call's presentation resolved
 * before the pipeline runs (so even the errors stage renders in it), and
 * the applied features echoed in `result._meta[id]` under the identifier
 * the client used. A call is never refused, skipped or rewritten (CN-15).
 */
import { ExtensionError, type CallContext, type ToolCall, type ToolMiddleware, type ToolResult } from '@ext/core';
import { toWireError } from '@ext/core/kit';
import { appliedFeatures, presentationSlot, renderedSlot } from './call.js';
import { echoFor, type PresentationResolver } from './negotiation.js';
import type { Presentation, PresentationDefaults } from './presentation.js';
import { checkRequestedOutputs, declaredVariants, outputsFor } from './variants.js';
import { OUTPUTS_FIELD, REQUESTED_OUTPUTS_PARAM, type OutputSelector } from './variants-schema.js';
import { CONTENT_NEGOTIATION_ID, type ContentNegotiationClientSettings } from './schema.js';
import { setCallPresentation } from './call-presentation.js';

/** Resolves the call's presentation once (the first of `beginCall` and the middleware to run) and shares it. */
export function prepareCall(resolver: PresentationResolver, call: ToolCall, ctx: CallContext): Presentation {
  const existing = presentationSlot.get(ctx);
  if (existing !== undefined) return existing;
  const negotiated = ctx.negotiated<ContentNegotiationClientSettings>(CONTENT_NEGOTIATION_ID);
  const presentation = resolver.resolve(negotiated, call.meta, ctx.logger);
  presentationSlot.set(ctx, presentation);
  // Only a negotiated presentation is shared: other extensions keep their default shape for everyone else.
  if (presentation.negotiated) setCallPresentation(ctx, presentation);
  return presentation;
}

/** What the middleware needs to answer SEP-3279's `requestedOutputs` (CN-19..CN-24); absent when not enabled. */
export interface VariantsConfig {
  readonly defaults: PresentationDefaults;
}

/** The code of the structured error refusing an invalid `requestedOutputs` (CN-21). */
export const INVALID_REQUESTED_OUTPUTS = 'INVALID_REQUESTED_OUTPUTS';

/** The selectors of a call that asks for outputs, or `undefined`; a `WireError` (-32602) when they are invalid. */
function selectionOf(call: ToolCall, ctx: CallContext): readonly OutputSelector[] | undefined {
  const raw = call.params?.[REQUESTED_OUTPUTS_PARAM];
  if (raw === undefined) return undefined;
  const check = checkRequestedOutputs(raw, declaredVariants(ctx.tool));
  if (check.ok) return check.selectors;
  // A structured invalid_input error travels as JSON-RPC -32602 (core CORE-15), naming where the params are wrong.
  throw toWireError(
    new ExtensionError('invalid_input', INVALID_REQUESTED_OUTPUTS, `${REQUESTED_OUTPUTS_PARAM}: ${check.reason}`, {
      userActionable: false,
      details: { pointer: check.pointer, reason: check.reason },
    }),
  );
}

/** The result with `_meta` settled: the echo under the identifier the client used, nothing of it otherwise. */
function echoed(result: ToolResult, presentation: Presentation, ids: readonly string[], ctx: CallContext): ToolResult {
  const meta = result._meta;
  if (!presentation.negotiated || presentation.id === undefined) {
    // Nothing of this extension reaches a client that did not advertise it.
    if (meta === undefined || !ids.some((id) => id in meta)) return result;
    const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => !ids.includes(key)));
    const copy: ToolResult = { ...result };
    if (Object.keys(rest).length > 0) copy._meta = rest;
    else delete copy._meta;
    return copy;
  }
  return { ...result, _meta: { ...(meta ?? {}), ...echoFor(presentation.id, appliedFeatures(ctx)) } };
}

/** The middleware of a server half serving `ids`, answering `requestedOutputs` when `variants` is given. */
export function contentNegotiationMiddleware(
  resolver: PresentationResolver,
  ids: readonly string[],
  variants?: VariantsConfig,
): ToolMiddleware {
  return async (call, ctx, next) => {
    const presentation = prepareCall(resolver, call, ctx);
    // Checked before the handler runs: an invalid selection is refused, never answered with a substitute.
    const selectors = variants === undefined ? undefined : selectionOf(call, ctx);
    const result = echoed(await next(), presentation, ids, ctx);
    if (selectors === undefined || variants === undefined) return result;
    const outputs = outputsFor(selectors, {
      result,
      rendered: renderedSlot.get(ctx),
      features: presentation.features,
      defaults: variants.defaults,
    });
    return { ...result, [OUTPUTS_FIELD]: outputs };
  };
}
