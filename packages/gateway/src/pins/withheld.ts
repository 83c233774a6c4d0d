/**
 * The pins applied to one offer of tools: each upstream tool reviewed
 * against its pin, the ones to withhold (and why), and the operator told
 * once when a tool changes, not at every rebuild of the offer.
 */
import type { Logger } from '@ext/core';
import type { Withheld } from '../policy/stage.js';
import type { ExposedTool } from '../upstream/index.js';
import { definitionDigest, toolDefinition } from './definition.js';
import type { OnToolChange } from './pins-config.js';
import type { PinSource } from './pin-source.js';
import { reviewTool } from './review.js';

export interface PinReview {
  readonly source: PinSource;
  readonly onToolChange: OnToolChange;
  readonly logger: Logger;
  /** Tools served changed under `warn`, with the digest of the definition warned about: each change is told once. */
  readonly warned: Map<string, string>;
}

/** The exposed names of the tools to withhold, with what changed; `before` is the previous offer's, for logging changes once. */
export async function withheldTools(
  exposed: readonly ExposedTool[],
  review: PinReview,
  before: ReadonlyMap<string, Withheld>,
): Promise<Map<string, Withheld>> {
  const withheld = new Map<string, Withheld>();
  for (const tool of exposed) {
    const judgement = await reviewTool(review.source, tool.upstream, toolDefinition(tool), review.onToolChange);
    if (judgement.status !== 'changed') continue;
    const changes = judgement.changes ?? [];
    if (!judgement.serve) {
      withheld.set(tool.name, { changes });
      if (!before.has(tool.name))
        review.logger.warn(
          `gateway: ${tool.name} changed upstream (${changes.join(', ')}); withheld until an operator runs: mcp-ext-gateway tools accept ${tool.name}`,
        );
    } else if (review.onToolChange === 'warn') {
      warnOnce(review, tool.name, definitionDigest(toolDefinition(tool)), changes);
    }
  }
  return withheld;
}

function warnOnce(review: PinReview, tool: string, digest: string, changes: readonly string[]): void {
  if (review.warned.get(tool) === digest) return;
  review.warned.set(tool, digest);
  review.logger.warn(`gateway: ${tool} changed upstream (${changes.join(', ')}); served (onToolChange: warn)`);
}
