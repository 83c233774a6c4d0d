/**
 * Reviewing one upstream tool against the pins: read its pin, judge it,
 * and pin it as the judgement says, settling races between gateway
 * instances that see a tool for the first time at once.
 */
import { definitionDigest, type ToolDefinition } from './definition.js';
import { judgeTool, type Judgement } from './check.js';
import type { OnToolChange } from './pins-config.js';
import type { PinSource } from './pin-source.js';

/** Whom a pin accepted by `onToolChange: accept` is recorded as accepted by. */
export const ACCEPTED_BY_POLICY = 'onToolChange: accept';

/**
 * How `definition` (of `upstream`) stands against `source`'s pins, pinned
 * as the judgement says: a new tool is pinned unless another instance
 * pinned it first (then it is judged against that pin), and a changed
 * one is accepted when the policy is `accept` and the pins are the store's.
 */
export async function reviewTool(
  source: PinSource,
  upstream: string,
  definition: ToolDefinition,
  onToolChange: OnToolChange,
): Promise<Judgement> {
  const judge = (pin: Parameters<typeof judgeTool>[0]) => judgeTool(pin, definition, onToolChange, source.reviewed);
  let judgement = judge(await source.pinned(upstream, definition.name));
  if (judgement.status === 'new') {
    const holding = await source.pinIfAbsent(upstream, definition.name, definition);
    if (holding.digest === definitionDigest(definition)) return judgement;
    judgement = judge(holding);
  }
  if (judgement.repin) await source.accept(upstream, definition.name, definition, ACCEPTED_BY_POLICY);
  return judgement;
}
