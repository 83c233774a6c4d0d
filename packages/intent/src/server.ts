import {
  ConfigurationError,
  ExtensionError,
  type CallContext,
  type ServerExtension,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { checkSuggestion, codePointLength, parseIntentMeta, route, type RoutingRule } from './logic.js';
import {
  DEFAULT_MAX_INTENT_LENGTH,
  INTENT_ID,
  INTENT_PACKAGE,
  INTENT_WIRE_VERSION,
  MAX_REASON_LENGTH,
  type IntentResultMeta,
  type IntentServerSettings,
  type Suggestion,
} from './schema.js';

export type { RoutingRule } from './logic.js';

/** What a routing function is told about a call. */
export interface RouteRequest {
  /** The client's stated intent (already validated). */
  readonly intent: string;
  /** The tool the client called. */
  readonly tool: string;
  /** The call's arguments, validated against the tool's input schema. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * A routing function (the function rule): a suggestion for this call, or
 * `undefined`. May be async. A throw or a malformed answer never fails the
 * call: it is logged and counts as no suggestion (INT-9).
 */
export type Router = (
  request: RouteRequest,
  ctx: CallContext,
) => Suggestion | undefined | Promise<Suggestion | undefined>;

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

function invalid(failure: { field: string; pointer: string; message: string }): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', failure.message, {
    userActionable: false,
    suggestion: `Send a short sentence in params._meta["${INTENT_ID}"].intent, or no intent at all.`,
    details: { field: failure.field, pointer: failure.pointer },
  });
}

function withMeta(result: ToolResult, id: string | undefined, meta: IntentResultMeta | undefined): ToolResult {
  const { [INTENT_ID]: _dropped, ...others } = result._meta ?? {};
  const copy: ToolResult = { ...result };
  const next: Record<string, unknown> = meta === undefined || id === undefined ? others : { ...others, [id]: meta };
  if (Object.keys(next).length === 0) delete copy._meta;
  else copy._meta = next;
  return copy;
}

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

/**
 * The server half of `@ext/intent`: reads why the client makes a call,
 * matches it against routing rules (declarative, then a function), and
 * suggests a better tool, advisory by default.
 *
 * @example
 * ```ts
 * intentServer({
 *   rules: [{ tool: 'get_recent_incidents', keywords: ['incident', 'outage'], from: ['search_issues'] }],
 *   router: ({ intent, tool }) => (tool === 'search_issues' && /last week/i.test(intent) ? { recommended_tool: 'list_recent', reason: 'Filters by date.' } : undefined),
 * });
 * ```
 */
export function intentServer(options: IntentServerOptions = {}): ServerExtension {
  const mode: string = options.mode ?? 'advisory';
  if (mode !== 'advisory' && mode !== 'redirect')
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "mode" must be "advisory" or "redirect"');
  const maxLength = options.maxIntentLength ?? DEFAULT_MAX_INTENT_LENGTH;
  if (!Number.isSafeInteger(maxLength) || maxLength < 1)
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "maxIntentLength" must be a positive integer');
  const router: unknown = options.router;
  if (router !== undefined && typeof router !== 'function')
    throw new ConfigurationError('INVALID_OPTION', 'intentServer: "router" must be a function');
  const rules = [...(options.rules ?? [])];
  checkRules(rules);
  const settings: IntentServerSettings = {
    version: INTENT_WIRE_VERSION,
    mode: mode === 'redirect' ? 'redirect' : 'advisory',
    max_intent_length: maxLength,
  };
  // Every tool registered through the core passes through toolMeta: the tools a suggestion may name.
  const served = new Set<string>();

  const ask = async (request: RouteRequest, ctx: CallContext): Promise<Suggestion | undefined> => {
    if (options.router === undefined) return undefined;
    let answer: unknown;
    try {
      answer = await options.router(request, ctx);
    } catch (error) {
      // Advisory by nature: a broken router must not break the call (INT-9). The intent itself is not logged.
      ctx.logger.warn('intentServer: the router threw; the call proceeds without a suggestion', {
        tool: request.tool,
        error: String(error),
      });
      return undefined;
    }
    const checked = checkSuggestion(answer, request.tool);
    if (!checked.ok) {
      ctx.logger.warn(`intentServer: the router's answer was ignored: ${checked.message}`, { tool: request.tool });
      return undefined;
    }
    return checked.suggestion;
  };

  const suggest = async (request: RouteRequest, ctx: CallContext): Promise<Suggestion | undefined> => {
    const suggestion = route(rules, request.intent, request.tool) ?? (await ask(request, ctx));
    if (suggestion === undefined) return undefined;
    if (!served.has(suggestion.recommended_tool)) {
      ctx.logger.warn('intentServer: a suggestion named a tool this server does not serve; it was dropped', {
        tool: request.tool,
        suggested: suggestion.recommended_tool,
      });
      return undefined;
    }
    return suggestion;
  };

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const negotiated = ctx.negotiated(INTENT_PACKAGE);
    // A client that never advertised the extension gets core behaviour (INT-2).
    if (negotiated === undefined) return withMeta(await next(), undefined, undefined);
    const parsed = parseIntentMeta(call.meta[negotiated.id], negotiated.id, maxLength);
    if (!parsed.ok) throw invalid(parsed);
    const suggestion =
      parsed.intent === undefined
        ? undefined
        : await suggest({ intent: parsed.intent, tool: call.name, arguments: call.arguments }, ctx);
    if (suggestion === undefined) return withMeta(await next(), negotiated.id, undefined);
    // MCP asks every non-error result of a tool with an output schema for conforming structuredContent, which a redirect cannot give (INT-6).
    if (mode === 'redirect' && ctx.tool.outputJsonSchema === undefined) {
      return {
        content: [
          {
            type: 'text',
            text: `Not run: ${suggestion.recommended_tool} fits this intent better. ${suggestion.reason}`,
          },
        ],
        _meta: { [negotiated.id]: { suggestion, executed: false } satisfies IntentResultMeta },
      };
    }
    return withMeta(await next(), negotiated.id, { suggestion, executed: true });
  };

  return {
    side: 'server',
    name: INTENT_PACKAGE,
    ids: [INTENT_ID],
    settings,
    stage: 'intent',
    middleware,
    toolMeta(tool) {
      served.add(tool.name);
      return undefined;
    },
  };
}
