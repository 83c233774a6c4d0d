/** The pipeline's stages, outermost first, and where a server half places itself among them. */
/**
 * The fixed order of the tool-call pipeline, outermost first
 * (docs/ARCHITECTURE.md, 'The tool-call pipeline'). Checks that refuse a call come before anything with effects.
 * Users list extensions in any order; the core sorts them by this.
 */
export const PIPELINE_STAGES = [
  'errors',
  'session-state',
  'content-negotiation',
  // A deployment's own rules (the gateway's access rules and argument conditions), before any extension's check.
  'policy',
  'permissions',
  'cost',
  'intent',
  'multimodal',
  // A call that becomes a task returns here at once; what is inside runs in the background.
  'tasks',
  'confirmation',
  'idempotency',
  'transactions',
  // Innermost: helpers around the handler itself.
  'streaming',
  'data-references',
  'provenance',
] as const;

export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/**
 * Where a middleware runs (CORE-50): at a named stage, which several halves
 * may share (they run in the order composed), or just outside
 * (`{ before: 'confirmation' }`) or just inside (`{ after: 'intent' }`) every
 * half at that stage. Nothing runs outside `errors`.
 */
export type StagePlacement = PipelineStage | { readonly before: PipelineStage } | { readonly after: PipelineStage };
