/** One sentence a person can read before a call: what it costs, how long it takes, what is left. */
import type { CostToolMeta, LatencyClass, QuotaState } from './schema.js';

function shownNumber(units: number): string {
  return Number.isInteger(units) ? String(units) : String(Number(units.toFixed(3)));
}

function formatUnits(units: number, label: string | undefined): string {
  return `${shownNumber(units)} ${label ?? (units === 1 ? 'unit' : 'units')}`;
}

const LATENCY_PHRASES: Record<LatencyClass, string> = {
  instant: 'is instant',
  seconds: 'takes seconds',
  minutes: 'takes minutes',
};

export interface CostDescriptionInput {
  /** How the sentence names the call, e.g. `this export` or `"export_analytics"`. */
  readonly subject: string;
  readonly meta: CostToolMeta;
  /** The caller's standing against the tool's quota, when known. */
  readonly quota?: QuotaState | undefined;
  /** What is left of the host's budget in the tool's unit, when it sets one. */
  readonly budgetRemaining?: number | undefined;
}

/**
 * One sentence a person can read before a call, e.g. `This export takes
 * minutes and uses 5 of your 12 remaining API calls (the quota resets at
 * 2026-03-16T00:00:00.000Z).` Estimates are presented as estimates.
 */
export function describeCost(input: CostDescriptionInput): string {
  const { meta, quota } = input;
  const { category, estimated_units: units, unit_label: label } = meta.cost;
  const parts: string[] = [];
  if (meta.latency !== undefined) parts.push(LATENCY_PHRASES[meta.latency]);
  if (category === 'free' && quota === undefined) {
    parts.push('is free');
  } else if (quota !== undefined) {
    parts.push(`uses ${shownNumber(units)} of your ${quota.remaining} remaining ${label ?? 'units'}`);
  } else {
    parts.push(`uses about ${formatUnits(units, label)}`);
  }
  let sentence = `${capitalize(input.subject)} ${joinClauses(parts)}`;
  if (category === 'requires_approval') sentence += ', and needs your approval first';
  if (quota !== undefined) sentence += ` (the quota resets at ${quota.resets_at})`;
  sentence += '.';
  if (input.budgetRemaining !== undefined && category !== 'free' && units > input.budgetRemaining) {
    sentence += ` That is more than the ${formatUnits(input.budgetRemaining, label)} left in your budget.`;
  }
  return sentence;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function joinClauses(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] ?? ''}`;
}
