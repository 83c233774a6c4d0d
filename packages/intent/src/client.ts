import { type CallToolOptions, type ClientExtension, type ExtendedClient, type ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
import { INTENT_ID, INTENT_PACKAGE, INTENT_WIRE_VERSION, IntentResultMetaSchema, type IntentResultMeta } from './schema.js';

/** The client half: advertises the extension. */
export function intentClient(): ClientExtension {
  return { side: 'client', name: INTENT_PACKAGE, ids: [INTENT_ID], settings: { version: INTENT_WIRE_VERSION } };
}

let metaValidator: ReturnType<typeof Compile<typeof IntentResultMetaSchema>> | undefined;

/** The server's suggestion on a result, or `undefined` (also for a malformed entry). */
export function getSuggestion(result: ToolResult): IntentResultMeta | undefined {
  metaValidator ??= Compile(IntentResultMetaSchema);
  const entry = result._meta?.[INTENT_ID];
  return metaValidator.Check(entry) ? entry : undefined;
}

/** `params._meta` that states the intent of one call. */
export function intentMeta(intent: string): Record<string, unknown> {
  return { [INTENT_ID]: { intent } };
}

/**
 * What to do with suggestions (INT-8). `ignore`: nothing; `log`: report
 * them; `follow`: call the recommended tool instead, with the same
 * arguments, but only when it is in `allowTools` (never an open redirect).
 */
export interface IntentPolicy {
  readonly policy: 'ignore' | 'log' | 'follow';
  /** Tools a suggestion may send the call to (`follow` only). Default: none. */
  readonly allowTools?: readonly string[] | undefined;
  readonly onSuggestion?: ((suggestion: IntentResultMeta, called: string) => void) | undefined;
}

export interface IntentCallOutcome {
  readonly result: ToolResult;
  readonly suggestion: IntentResultMeta | undefined;
  /** The tool whose result this is, when the policy followed a suggestion. */
  readonly followed: string | undefined;
}

/** Calls a tool stating why, and applies the host's policy to any suggestion. */
export async function callWithIntent(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown>,
  intent: string,
  policy: IntentPolicy,
  options: CallToolOptions = {},
): Promise<IntentCallOutcome> {
  const negotiated = client.negotiated(INTENT_PACKAGE);
  const meta = negotiated === undefined ? options.meta : { ...options.meta, [negotiated.id]: { intent } };
  const result = await client.callTool(name, args, { ...options, meta });
  const suggestion = getSuggestion(result);
  if (suggestion === undefined || policy.policy === 'ignore') return { result, suggestion, followed: undefined };
  policy.onSuggestion?.(suggestion, name);
  const target = suggestion.suggestion.recommended_tool;
  if (policy.policy !== 'follow' || !(policy.allowTools ?? []).includes(target)) return { result, suggestion, followed: undefined };
  return { result: await client.callTool(target, args, { ...options, meta: options.meta }), suggestion, followed: target };
}
