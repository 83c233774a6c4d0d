import type { Suggestion } from './schema.js';

/** A declarative routing rule: when the intent matches, suggest `tool`. */
export interface RoutingRule {
  /** The tool to recommend. */
  readonly tool: string;
  /** Matches when any of these words appears in the intent (whole words, any case). */
  readonly keywords?: readonly string[] | undefined;
  /** Matches when this regular expression matches the intent. */
  readonly pattern?: RegExp | undefined;
  /** Why, shown to the client. Default: names what matched. */
  readonly reason?: string | undefined;
  /** Only for calls of these tools (default: any tool). */
  readonly from?: readonly string[] | undefined;
}

/** A routing function: a suggestion for this intent and called tool, or `undefined`. */
export type Router = (intent: string, calledTool: string) => Suggestion | undefined;

function escape(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `rule` matches the intent; returns what matched, for the reason. */
export function ruleMatch(rule: RoutingRule, intent: string): string | undefined {
  for (const word of rule.keywords ?? []) {
    if (new RegExp(`(^|[^\\p{L}\\p{N}])${escape(word)}($|[^\\p{L}\\p{N}])`, 'iu').test(intent)) return `mentions "${word}"`;
  }
  if (rule.pattern !== undefined) {
    // A global or sticky pattern keeps state between calls: test a fresh copy.
    const pattern = new RegExp(rule.pattern.source, rule.pattern.flags.replace(/[gy]/g, ''));
    if (pattern.test(intent)) return `matches ${String(rule.pattern)}`;
  }
  return undefined;
}

/**
 * The first rule that matches and recommends another tool than the one
 * called, as a suggestion; `undefined` when none does. Pure.
 */
export function route(rules: readonly RoutingRule[], intent: string, calledTool: string): Suggestion | undefined {
  for (const rule of rules) {
    if (rule.tool === calledTool) continue;
    if (rule.from !== undefined && !rule.from.includes(calledTool)) continue;
    const matched = ruleMatch(rule, intent);
    if (matched !== undefined) return { recommended_tool: rule.tool, reason: rule.reason ?? `The intent ${matched}, which ${rule.tool} is made for.` };
  }
  return undefined;
}
