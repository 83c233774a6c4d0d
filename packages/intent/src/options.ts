/** `intentServer` options: the routing rules and function a server author writes, and the checks made at construction. */
import { ConfigurationError, type CallContext } from '@ext/core';
import { type Resolved } from '@ext/core/kit';
import { codePointLength, type RoutingRule } from './logic.js';
import { DEFAULT_MAX_INTENT_LENGTH, MAX_REASON_LENGTH } from './schema.js';

/** What a routing function is told about a call. */
export interface RouteRequest {
  /** The client's stated intent (already validated). */
  readonly intent: string;
  /** The tool the client called. */
  readonly tool: string;
  /** The call's arguments, validated against the tool's input schema. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** What a routing function suggests; sent as the seed's `suggestion` (`recommended_tool`, `reason`). */
export type RouteSuggestion =
  | {
      /** The tool to call instead. */
      readonly recommendedTool: string;
      /** Why, in a sentence the model can act on (at most 1000 characters). */
      readonly reason: string;
    }
  | {
      /** @deprecated Use `recommendedTool`; the snake_case spelling goes in the next major. */
      readonly recommended_tool: string;
      readonly reason: string;
    };

/**
 * A routing function (the function rule): a suggestion for this call, or
 * `undefined`. May be async. A throw or a malformed answer never fails the
 * call: it is logged and counts as no suggestion (INT-9).
 */
export type Router = (
  request: RouteRequest,
  ctx: CallContext,
) => RouteSuggestion | undefined | Promise<RouteSuggestion | undefined>;

export interface IntentServerOptions {
  /** Declarative rules, tried in order (INT-4). Default: none. */
  readonly rules?: readonly RoutingRule[] | undefined;
  /** A routing function, asked when no rule matched. Default: none. */
  readonly router?: Router | undefined;
  /**
   * `advisory` (default): the called tool runs and the result carries the
   * suggestion. `redirect`: a call with a suggestion does not run; the result
   * says which tool to call instead (INT-6).
   */
  readonly mode?: 'advisory' | 'redirect' | undefined;
  /** Longest intent accepted, in Unicode code points. Default 500. */
  readonly maxIntentLength?: number | undefined;
}

/** The options as the server uses them, checked, defaults applied (`router` has none). */
export type IntentConfig = Resolved<IntentServerOptions, 'router'>;

function checkRules(rules: readonly RoutingRule[]): void {
  rules.forEach((rule, index) => {
    const where = `intentServer: rules[${index}]`;
    if (typeof rule.tool !== 'string' || rule.tool === '')
      throw new ConfigurationError('INVALID_RULE', `${where}.tool must be a tool name`);
    const keywords: unknown = rule.keywords;
    if (
      keywords !== undefined &&
      (!Array.isArray(keywords) || !keywords.every((word) => typeof word === 'string' && word.trim() !== ''))
    ) {
      throw new ConfigurationError('INVALID_RULE', `${where}.keywords must be non-blank strings`);
    }
    const pattern: unknown = rule.pattern;
    if (pattern !== undefined && !(pattern instanceof RegExp))
      throw new ConfigurationError('INVALID_RULE', `${where}.pattern must be a RegExp`);
    if ((rule.keywords ?? []).length === 0 && rule.pattern === undefined) {
      throw new ConfigurationError('INVALID_RULE', `${where} (${rule.tool}) needs keywords or a pattern`);
    }
    if (
      rule.reason !== undefined &&
      (typeof rule.reason !== 'string' || codePointLength(rule.reason) > MAX_REASON_LENGTH)
    ) {
      throw new ConfigurationError(
        'INVALID_RULE',
        `${where}.reason must be a string of at most ${MAX_REASON_LENGTH} characters`,
      );
    }
  });
}

/** Checks `options` and applies the defaults; throws `INVALID_OPTION` or `INVALID_RULE` naming what is wrong. */
export function resolveOptions(options: IntentServerOptions): IntentConfig {
  const { rules = [], router, mode = 'advisory', maxIntentLength = DEFAULT_MAX_INTENT_LENGTH } = options;
  // Typed as string: JavaScript callers can pass anything.
  const given: string = mode;
  if (given !== 'advisory' && given !== 'redirect')
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "mode" must be "advisory" or "redirect"');
  if (!Number.isSafeInteger(maxIntentLength) || maxIntentLength < 1)
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "maxIntentLength" must be a positive integer');
  if (router !== undefined && typeof router !== 'function')
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "router" must be a function');
  checkRules(rules);
  return { mode, maxIntentLength, router, rules: [...rules] };
}
