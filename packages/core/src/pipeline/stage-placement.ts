/**
 * Where each server half's middleware runs (CORE-16, CORE-17, CORE-50): at
 * one of the named stages, which several halves may share, or just before or
 * just after one. Only the fail-closed checks are here: a middleware needs a
 * place, a place names a known stage, and `errors` stays the one outermost
 * stage, so that every refusal reaches the client as a structured error.
 */
import { ConfigurationError } from '../contract/errors.js';
import { PIPELINE_STAGES, type PipelineStage, type StagePlacement } from '../contract/stages.js';
import { type ServerExtension } from '../contract/extension.js';

/** A placement read: the stage it is anchored to and which side of it. */
interface Anchored {
  readonly stage: PipelineStage;
  /** 0 just before the stage, 1 at it, 2 just after it. */
  readonly side: 0 | 1 | 2;
}

/** The stage and side a placement names, as written (an author's typo or a hostile value included). */
function readPlacement(placement: StagePlacement): [stage: unknown, side: 0 | 1 | 2] {
  if (typeof placement === 'string') return [placement, 1];
  if (typeof placement !== 'object' || (placement as unknown) === null) return [placement, 1];
  return 'before' in placement ? [placement.before, 0] : [placement.after, 2];
}

function anchorOf(half: ServerExtension, placement: StagePlacement): Anchored {
  const [stage, side] = readPlacement(placement);
  if (!PIPELINE_STAGES.includes(stage as PipelineStage)) {
    throw new ConfigurationError(
      'UNKNOWN_STAGE',
      `${half.name}: unknown pipeline stage ${typeof stage === 'string' ? `"${stage}"` : String(stage)}; the stages are ${PIPELINE_STAGES.join(', ')}`,
    );
  }
  if (stage === 'errors' && side === 0) {
    throw new ConfigurationError(
      'STAGE_BEFORE_ERRORS',
      `${half.name}: nothing runs outside the errors stage (a refusal there would not be a structured error); use { after: 'errors' }`,
    );
  }
  return { stage: stage as PipelineStage, side };
}

/** The label of a placement in `ComposedServer.pipeline` and in telemetry: `intent`, `before confirmation`, `after intent`. */
export function stageLabel(placement: StagePlacement): string {
  if (typeof placement === 'string') return placement;
  return 'before' in placement ? `before ${placement.before}` : `after ${placement.after}`;
}

/**
 * Server halves in pipeline order, outermost first: by the named stage each
 * is placed at or beside, then before / at / after it, then in the order
 * composed; halves without a middleware last, in the order given.
 */
export function inPipelineOrder(halves: readonly ServerExtension[]): ServerExtension[] {
  let errorsHalf: string | undefined;
  const rank = (half: ServerExtension): number => {
    if (half.stage === undefined) {
      if (half.middleware) {
        throw new ConfigurationError(
          'MISSING_STAGE',
          `${half.name}: a middleware needs a place in the pipeline: a stage ("intent") or beside one ({ after: "intent" })`,
        );
      }
      return PIPELINE_STAGES.length * 3;
    }
    const { stage, side } = anchorOf(half, half.stage);
    if (stage === 'errors' && side === 1) {
      if (errorsHalf !== undefined) {
        throw new ConfigurationError(
          'DUPLICATE_STAGE',
          `${half.name} and ${errorsHalf} both claim the errors stage, which is the one outermost stage`,
        );
      }
      errorsHalf = half.name;
    }
    return PIPELINE_STAGES.indexOf(stage) * 3 + side;
  };
  return halves
    .map((half, index) => ({ half, index, rank: rank(half) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ half }) => half);
}
