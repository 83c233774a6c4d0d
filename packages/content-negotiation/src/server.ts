/** The server half of `@ext/content-negotiation`, and what tool handlers call to answer in the negotiated shape. */
import type { Logger, ServerExtension } from '@ext/core';
import { contentNegotiationMiddleware, prepareCall } from './middleware.js';
import { presentationResolver } from './negotiation.js';
import { validateOptions, type ContentNegotiationServerOptions } from './options.js';
import { DEFAULT_PRESENTATION, type Presentation, type PresentationDefaults } from './presentation.js';
import {
  CONTENT_NEGOTIATION_DRAFT_ID,
  CONTENT_NEGOTIATION_ID,
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  ContentNegotiationClientSettingsSchema,
} from './schema.js';
import { declaredVariants } from './variants.js';
import { OUTPUT_VARIANTS_FIELD } from './variants-schema.js';

export type { ContentNegotiationServerOptions } from './options.js';
export { appliedFeatures, getPresentation, markApplied, render } from './call.js';
export { INVALID_REQUESTED_OUTPUTS } from './middleware.js';

/** The server half, plus a way to resolve a presentation outside tool calls. */
export interface ContentNegotiationServerExtension extends ServerExtension {
  /**
   * The presentation for a request that does not go through the tool
   * pipeline (`resources/read`, `prompts/get`): from the client's
   * `capabilities.extensions` (`undefined` when unknown) and the request's
   * `params._meta`. Dropped tags are reported to `logger`.
   */
  presentationFor(request: {
    readonly peerExtensions: unknown;
    readonly meta?: unknown;
    readonly logger?: Logger | undefined;
  }): Presentation;
}

/**
 * The server half: resolves each tool call's presentation before the
 * pipeline runs (so even the errors stage renders in it), and echoes the
 * applied features in `result._meta[id]` under the identifier the client
 * used. It never refuses, skips or rewrites a call (CN-15).
 */
export function contentNegotiationServer(options?: ContentNegotiationServerOptions): ContentNegotiationServerExtension {
  const resolved = validateOptions(options);
  const defaults: PresentationDefaults = {
    format: resolved.defaultFormat ?? DEFAULT_PRESENTATION.format,
    verbosity: resolved.defaultVerbosity ?? DEFAULT_PRESENTATION.verbosity,
  };
  const draft = resolved.acceptDraftIdentifier === true;
  const ids: readonly string[] = draft
    ? [CONTENT_NEGOTIATION_ID, CONTENT_NEGOTIATION_DRAFT_ID]
    : [CONTENT_NEGOTIATION_ID];
  const resolver = presentationResolver(ids, defaults);
  const variants = resolved.resultVariants === true;
  return {
    side: 'server',
    name: CONTENT_NEGOTIATION_PACKAGE_NAME,
    ids,
    reservedAliases: draft ? [CONTENT_NEGOTIATION_DRAFT_ID] : undefined,
    settings: { version: CONTENT_NEGOTIATION_WIRE_VERSION },
    peerSettings: ContentNegotiationClientSettingsSchema,
    stage: 'content-negotiation',
    beginCall: (call, ctx) => {
      prepareCall(resolver, call, ctx);
    },
    middleware: contentNegotiationMiddleware(resolver, ids, variants ? { defaults } : undefined),
    toolFields: variants ? (tool) => ({ [OUTPUT_VARIANTS_FIELD]: declaredVariants(tool) }) : undefined,
    presentationFor: (request) => resolver.presentationFor(request),
  };
}

export { renderResource, renderPrompt, genericMarkdown, genericText } from './render.js';
export type { RenderOptions, Renderer, ResourceRenderOptions, PromptRenderOptions } from './render.js';
export type { Presentation, PresentationDefaults, Audience } from './presentation.js';
