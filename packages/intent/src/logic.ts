/**
 * The pure logic of intent routing: matching rules against an intent,
 * reading the intent a client sent, and checking a router's answer.
 */
import { isRecord, metaFault, renamedKeys } from '@ext/core/kit';
import { MAX_REASON_LENGTH, MAX_TOOL_NAME_LENGTH, type Suggestion } from './schema.js';

/** A declarative routing rule: when the intent matches, suggest `tool`. */
export interface RoutingRule {
  /** The tool to recommend. */
  readonly tool: string;
  /** Matches when any of these words or phrases appears in the intent (whole words, any case). */
  readonly keywords?: readonly string[] | undefined;
  /** Matches when this regular expression matches the intent. */
  readonly pattern?: RegExp | undefined;
  /** Why, shown to the client. Default: names what matched. */
  readonly reason?: string | undefined;
  /** Only for calls of these tools (default: any tool). */
  readonly from?: readonly string[] | undefined;
}

function escape(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `rule` matches the intent; returns what matched, for the reason. Pure. */
export function ruleMatch(rule: RoutingRule, intent: string): string | undefined {
  for (const word of rule.keywords ?? []) {
    if (new RegExp(`(^|[^\\p{L}\\p{N}])${escape(word)}($|[^\\p{L}\\p{N}])`, 'iu').test(intent))
      return `mentions "${word}"`;
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
    if (matched !== undefined)
      return {
        recommended_tool: rule.tool,
        reason: rule.reason ?? `The intent ${matched}, which ${rule.tool} is made for.`,
      };
  }
  return undefined;
}

/** Length in Unicode code points, so an emoji counts once, as a person would count it. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** The first `max` code points of `text` (never half a surrogate pair). */
export function truncateCodePoints(text: string, max: number): string {
  if (codePointLength(text) <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/** The intent a call states, or where its entry is wrong (`pointer` relative to `params`). */
export type ParsedIntent =
  | { readonly ok: true; readonly intent: string | undefined }
  | { readonly ok: false; readonly field: string; readonly pointer: string; readonly message: string };

/**
 * Reads `params._meta[id]` as it arrived (INT-3): the intent, or
 * `undefined` when the call states none. Unknown fields of the entry are
 * ignored. Never throws.
 */
export function parseIntentMeta(raw: unknown, id: string, maxLength: number): ParsedIntent {
  if (raw === undefined) return { ok: true, intent: undefined };
  if (!isRecord(raw)) {
    return metaFault(id, '', `params._meta["${id}"] must be an object with an "intent"`);
  }
  const intent = raw.intent;
  if (typeof intent !== 'string' || intent.trim() === '') {
    return metaFault(id, '/intent', 'intent must be a non-blank string');
  }
  const length = codePointLength(intent);
  if (length > maxLength) {
    return metaFault(id, '/intent', `intent is ${length} characters long; at most ${maxLength} are accepted`);
  }
  return { ok: true, intent };
}

/**
 * Checks what a routing function returned (INT-9): a suggestion for another
 * tool (`recommendedTool`; the 0.1 spelling `recommended_tool` is still
 * taken, with a warning), with a bounded reason. Returns it in the wire's
 * spelling. `undefined` stays "no suggestion"; anything else malformed is
 * an error message.
 */
export function checkSuggestion(
  value: unknown,
  calledTool: string,
):
  | { readonly ok: true; readonly suggestion: Suggestion | undefined }
  | { readonly ok: false; readonly message: string } {
  if (value === undefined || value === null) return { ok: true, suggestion: undefined };
  if (!isRecord(value)) return { ok: false, message: 'the router returned something other than a suggestion object' };
  const { recommendedTool: tool, reason } = renamedKeys('@ext/intent router answer', value, {
    recommended_tool: 'recommendedTool',
  });
  if (typeof tool !== 'string' || tool === '' || tool.length > MAX_TOOL_NAME_LENGTH)
    return { ok: false, message: 'recommendedTool must be a tool name' };
  if (typeof reason !== 'string' || codePointLength(reason) > MAX_REASON_LENGTH)
    return { ok: false, message: `reason must be a string of at most ${MAX_REASON_LENGTH} characters` };
  if (tool === calledTool) return { ok: true, suggestion: undefined };
  return { ok: true, suggestion: { recommended_tool: tool, reason } };
}
