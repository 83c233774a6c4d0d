/**
 * The tool-call side of the server half: each call's presentation resolved
 * before the pipeline runs (so even the errors stage renders in it), and
 * the applied features echoed in `result._meta[id]` under the identifier
 * the client used. A call is never refused, skipped or rewritten (CN-15).
 */
import { setCallPresentation, type CallContext, type ToolCall, type ToolMiddleware, type ToolResult } from '@ext/core';
import { appliedFeatures, presentationSlot } from './call.js';
import { echoFor, type PresentationResolver } from './negotiation.js';
import type { Presentation } from './presentation.js';
import { CONTENT_NEGOTIATION_ID, type ContentNegotiationClientSettings } from './schema.js';

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

/** The middleware of a server half serving `ids`. */
export function contentNegotiationMiddleware(resolver: PresentationResolver, ids: readonly string[]): ToolMiddleware {
  return async (call, ctx, next) => {
    const presentation = prepareCall(resolver, call, ctx);
    const result = await next();
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
  };
}
