import { ConfigurationError, ExtensionError, type ServerExtension, type ToolMiddleware, type ToolResult } from '@ext/core';
import { route, type Router, type RoutingRule } from './logic.js';
import {
  DEFAULT_MAX_INTENT_LENGTH,
  INTENT_ID,
  INTENT_PACKAGE,
  INTENT_WIRE_VERSION,
  type IntentResultMeta,
  type IntentServerSettings,
  type Suggestion,
} from './schema.js';

export type { RoutingRule, Router } from './logic.js';

export interface IntentServerOptions {
  /** Declarative rules, tried in order (INT-4). Default: none. */
  readonly rules?: readonly RoutingRule[] | undefined;
  /** A routing function, asked when no rule matched. */
  readonly router?: Router | undefined;
  /**
   * `advisory` (default): the called tool runs and the result carries the
   * suggestion. `redirect`: a call with a suggestion does not run; the result
   * says which tool to call instead (INT-6).
   */
  readonly mode?: 'advisory' | 'redirect' | undefined;
  /** Longest intent accepted, in characters. Default 500. */
  readonly maxIntentLength?: number | undefined;
}

function invalid(message: string, field: string): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', message, {
    suggestion: 'Send a short sentence in params._meta["io.github.mcp-ext/intent"].intent, or no intent at all.',
    details: { field, pointer: `/_meta/${INTENT_ID.replace('/', '~1')}${field === INTENT_ID ? '' : `/${field}`}` },
  });
}

/** The intent of a call, or `undefined` when it states none; throws on a malformed entry (INT-3). */
export function readIntent(raw: unknown, maxLength: number): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(`params._meta["${INTENT_ID}"] must be an object`, INTENT_ID);
  const intent = (raw as { intent?: unknown }).intent;
  if (typeof intent !== 'string' || intent.trim() === '') throw invalid('intent must be a non-empty string', 'intent');
  if (intent.length > maxLength) throw invalid(`intent is ${String(intent.length)} characters long; at most ${String(maxLength)} are accepted`, 'intent');
  return intent;
}

function withMeta(result: ToolResult, meta: IntentResultMeta | undefined): ToolResult {
  const { [INTENT_ID]: _dropped, ...others } = result._meta ?? {};
  const copy: ToolResult = { ...result };
  const next: Record<string, unknown> = meta === undefined ? others : { ...others, [INTENT_ID]: meta };
  if (Object.keys(next).length === 0) delete copy._meta;
  else copy._meta = next;
  return copy;
}

/**
 * The server half of `@ext/intent`: reads why the client makes a call,
 * matches it against routing rules, and suggests a better tool, advisory by
 * default.
 *
 * @example
 * ```ts
 * intentServer({ rules: [{ tool: 'get_recent_incidents', keywords: ['incident', 'outage'], from: ['search_issues'] }] });
 * ```
 */
export function intentServer(options: IntentServerOptions = {}): ServerExtension {
  const mode: string = options.mode ?? 'advisory';
  if (mode !== 'advisory' && mode !== 'redirect') throw new ConfigurationError('INVALID_OPTION', 'intentServer: "mode" must be "advisory" or "redirect"');
  const maxLength = options.maxIntentLength ?? DEFAULT_MAX_INTENT_LENGTH;
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) throw new ConfigurationError('INVALID_OPTION', 'intentServer: "maxIntentLength" must be a positive integer');
  const rules = [...(options.rules ?? [])];
  rules.forEach((rule, index) => {
    if (typeof rule.tool !== 'string' || rule.tool === '') throw new ConfigurationError('INVALID_RULE', `intentServer: rules[${String(index)}].tool must be a tool name`);
    if ((rule.keywords ?? []).length === 0 && rule.pattern === undefined) {
      throw new ConfigurationError('INVALID_RULE', `intentServer: rules[${String(index)}] (${rule.tool}) needs keywords or a pattern`);
    }
  });
  const settings: IntentServerSettings = { version: INTENT_WIRE_VERSION, mode: mode === 'redirect' ? 'redirect' : 'advisory', max_intent_length: maxLength };

  const suggest = (intent: string, tool: string): Suggestion | undefined => route(rules, intent, tool) ?? options.router?.(intent, tool);

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const negotiated = ctx.negotiated(INTENT_PACKAGE);
    // A client that never advertised the extension gets core behaviour (INT-2).
    if (negotiated === undefined) return withMeta(await next(), undefined);
    const intent = readIntent(call.meta[negotiated.id], maxLength);
    const suggestion = intent === undefined ? undefined : suggest(intent, call.name);
    if (suggestion === undefined) return withMeta(await next(), undefined);
    if (mode === 'redirect') {
      return {
        content: [{ type: 'text', text: `Not run: ${suggestion.recommended_tool} fits this intent better. ${suggestion.reason}` }],
        structuredContent: { suggestion },
        _meta: { [negotiated.id]: { suggestion, executed: false } satisfies IntentResultMeta },
      };
    }
    return withMeta(await next(), { suggestion, executed: true });
  };

  return { side: 'server', name: INTENT_PACKAGE, ids: [INTENT_ID], settings, stage: 'intent', middleware };
}
