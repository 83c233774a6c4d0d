/**
 * The tool-call middleware: reads the intent a call states, asks the rules,
 * then the routing function, for a better tool, and either attaches the
 * suggestion to the result (advisory) or answers with it instead (redirect).
 */
import { invalidInputError } from '@ext/core/kit';
import { type CallContext, type ToolMiddleware, type ToolResult } from '@ext/core';
import { checkSuggestion, parseIntentMeta, route } from './logic.js';
import type { IntentConfig, RouteRequest } from './options.js';
import { INTENT_ID, type IntentResultMeta, type Suggestion } from './schema.js';

/** `result` with this extension's `_meta` entry replaced by `meta` under `id`, or removed. */
function withMeta(result: ToolResult, id: string | undefined, meta: IntentResultMeta | undefined): ToolResult {
  const { [INTENT_ID]: _dropped, ...others } = result._meta ?? {};
  const copy: ToolResult = { ...result };
  const next: Record<string, unknown> = meta === undefined || id === undefined ? others : { ...others, [id]: meta };
  if (Object.keys(next).length === 0) delete copy._meta;
  else copy._meta = next;
  return copy;
}

/** The routing function's suggestion; a throw or a malformed answer is logged and counts as none (INT-9). */
async function ask(config: IntentConfig, request: RouteRequest, ctx: CallContext): Promise<Suggestion | undefined> {
  if (config.router === undefined) return undefined;
  let answer: unknown;
  try {
    answer = await config.router(request, ctx);
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
}

/** The first rule's suggestion, else the routing function's, if it names a tool this server serves. */
async function suggest(
  config: IntentConfig,
  served: ReadonlySet<string>,
  request: RouteRequest,
  ctx: CallContext,
): Promise<Suggestion | undefined> {
  const suggestion = route(config.rules, request.intent, request.tool) ?? (await ask(config, request, ctx));
  if (suggestion === undefined) return undefined;
  if (!served.has(suggestion.recommended_tool)) {
    ctx.logger.warn('intentServer: a suggestion named a tool this server does not serve; it was dropped', {
      tool: request.tool,
      suggested: suggestion.recommended_tool,
    });
    return undefined;
  }
  return suggestion;
}

/** The middleware of the `intent` stage; `served` holds the tools a suggestion may name. */
export function intentMiddleware(config: IntentConfig, served: ReadonlySet<string>): ToolMiddleware {
  return async (call, ctx, next) => {
    const negotiated = ctx.negotiated(INTENT_ID);
    // A client that never advertised the extension gets core behaviour (INT-2).
    if (negotiated === undefined) return withMeta(await next(), undefined, undefined);
    const parsed = parseIntentMeta(call.meta[negotiated.id], negotiated.id, config.maxIntentLength);
    if (!parsed.ok) {
      throw invalidInputError(
        parsed,
        `Send a short sentence in params._meta["${INTENT_ID}"].intent, or no intent at all.`,
      );
    }
    const suggestion =
      parsed.intent === undefined
        ? undefined
        : await suggest(config, served, { intent: parsed.intent, tool: call.name, arguments: call.arguments }, ctx);
    if (suggestion === undefined) return withMeta(await next(), negotiated.id, undefined);
    // MCP asks every non-error result of a tool with an output schema for conforming structuredContent, which a redirect cannot give (INT-6).
    if (config.mode === 'redirect' && ctx.tool.outputJsonSchema === undefined) {
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
}
