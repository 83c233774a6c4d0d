/**
 * The presentation (format, verbosity) negotiated for the current call, in a
 * slot any extension can read from this SDK-free entry (the errors stage
 * renders its failure text with it) without importing the server half.
 */
import type { RequestContext } from '@ext/core';
import { defineLocal } from '@ext/core/kit';

/** Output formats a result can be rendered in (content-negotiation's `format=` values). */
export const PRESENTATION_FORMATS = ['json', 'text', 'markdown'] as const;
export type PresentationFormat = (typeof PRESENTATION_FORMATS)[number];

/** How much a rendered result says (content-negotiation's `verbosity=` values). */
export const PRESENTATION_VERBOSITIES = ['compact', 'standard', 'verbose'] as const;
export type PresentationVerbosity = (typeof PRESENTATION_VERBOSITIES)[number];

/**
 * The presentation negotiated for the current tool call. Written by this
 * package's server half before the pipeline runs, read by any extension that
 * builds a result of its own.
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

// Keyed by Symbol.for, so two installed copies of this package agree on the slot.
const presentationSlot = defineLocal<CallPresentation>('content-negotiation/call-presentation');

/** The presentation of the current call, or `undefined` when nobody negotiated one. */
export function getCallPresentation(ctx: Pick<RequestContext, 'locals'>): CallPresentation | undefined {
  return presentationSlot.get(ctx);
}

/** Records the presentation of the current call (the server half does, before the pipeline runs). */
export function setCallPresentation(ctx: Pick<RequestContext, 'locals'>, presentation: CallPresentation): void {
  const slot: CallPresentation = { format: presentation.format, verbosity: presentation.verbosity };
  presentationSlot.set(
    ctx,
    presentation.resultMeta === undefined ? slot : { ...slot, resultMeta: { ...presentation.resultMeta } },
  );
}
