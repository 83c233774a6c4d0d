/** The presentation (format, verbosity) negotiated for the current call, in a slot every extension can read. */
import type { RequestContext } from '../contract/extension.js';
import { defineLocal } from '../kit/locals.js';

/** Output formats a result can be rendered in (content-negotiation's `format=` values). */
export const PRESENTATION_FORMATS = ['json', 'text', 'markdown'] as const;
export type PresentationFormat = (typeof PRESENTATION_FORMATS)[number];

/** How much a rendered result says (content-negotiation's `verbosity=` values). */
export const PRESENTATION_VERBOSITIES = ['compact', 'standard', 'verbose'] as const;
export type PresentationVerbosity = (typeof PRESENTATION_VERBOSITIES)[number];

/**
 * The presentation negotiated for the current tool call. Written by
 * `@ext/content-negotiation`, read by any extension that builds a result of
 * its own (the errors stage renders its failure text with it), so that no
 * extension imports another.
 */
export interface CallPresentation {
  readonly format: PresentationFormat;
  readonly verbosity: PresentationVerbosity;
  /**
   * `result._meta` entries that describe this presentation (content
   * negotiation's echo of the applied features). Whoever builds a result
   * rendered this way merges them into its `_meta`.
   */
  readonly resultMeta?: Readonly<Record<string, unknown>> | undefined;
}

// Keyed by Symbol.for, so duplicate copies of core agree on the slot.
const presentationSlot = defineLocal<CallPresentation>('core/presentation');

/** The presentation of the current call, or `undefined` when nobody negotiated one. */
export function getCallPresentation(ctx: Pick<RequestContext, 'locals'>): CallPresentation | undefined {
  return presentationSlot.get(ctx);
}

/** Records the presentation of the current call (content-negotiation does, before the pipeline runs). */
export function setCallPresentation(ctx: Pick<RequestContext, 'locals'>, presentation: CallPresentation): void {
  const slot: CallPresentation = { format: presentation.format, verbosity: presentation.verbosity };
  presentationSlot.set(
    ctx,
    presentation.resultMeta === undefined ? slot : { ...slot, resultMeta: { ...presentation.resultMeta } },
  );
}
