/**
 * The client half of `@ext/intent` (the `./client` entry): the descriptor,
 * and `callWithIntent`, which states why a call is made and applies the
 * host's policy to the server's suggestion.
 */
import {
  ConfigurationError,
  type CallToolOptions,
  type ClientExtension,
  type ExtendedClient,
  type ToolResult,
} from '@ext/core';
import { lazyValidator, parseSettings } from '@ext/core/kit';
import { truncateCodePoints } from './logic.js';
import {
  INTENT_ID,
  INTENT_PACKAGE,
  INTENT_WIRE_VERSION,
  IntentResultMetaSchema,
  IntentServerSettingsSchema,
  type IntentResultMeta,
  type IntentServerSettings,
} from './schema.js';

/**
 * What to do with suggestions (INT-8). `ignore` (default): nothing beyond
 * returning it; `log`: report it; `follow`: call the recommended tool, but
 * only when it is in `allowTools` (never an open redirect).
 */
export interface IntentPolicy {
  readonly policy: 'ignore' | 'log' | 'follow';
  /** Tools a suggestion may send the call to (`follow` only). Default: none. */
  readonly allowTools?: readonly string[] | undefined;
  /**
   * Also follow a suggestion when the called tool already ran (advisory
   * mode), which runs a second tool. Default `false`: only a call the
   * server did not run (redirect mode) is followed.
   */
  readonly followExecuted?: boolean | undefined;
  /**
   * The arguments for the recommended tool, from the original ones;
   * `undefined` declines to follow. Default: the original arguments.
   */
  readonly mapArguments?:
    | ((
        suggestion: IntentResultMeta['suggestion'],
        args: Readonly<Record<string, unknown>>,
      ) => Record<string, unknown> | undefined)
    | undefined;
  /** Told about every suggestion (`log` and `follow`). Default for `log`: the client logger's `debug`, when it has one. */
  readonly onSuggestion?: ((suggestion: IntentResultMeta, called: string) => void) | undefined;
}

export type IntentClientOptions = Partial<IntentPolicy>;

// The policy given to a half, found again from the composed client.
const policies = new WeakMap<ClientExtension, IntentPolicy>();

function checkPolicy(policy: IntentPolicy, where: string): void {
  const kind: unknown = policy.policy;
  if (kind !== 'ignore' && kind !== 'log' && kind !== 'follow')
    throw new ConfigurationError('INVALID_OPTION', `${where}: "policy" must be "ignore", "log" or "follow"`);
  const allow: unknown = policy.allowTools;
  if (allow !== undefined && (!Array.isArray(allow) || !allow.every((tool) => typeof tool === 'string'))) {
    throw new ConfigurationError('INVALID_OPTION', `${where}: "allowTools" must be tool names`);
  }
}

/** The client half: advertises the extension; `options` is the default policy of {@link callWithIntent}. */
export function intentClient(options: IntentClientOptions = {}): ClientExtension {
  const policy: IntentPolicy = { ...options, policy: options.policy ?? 'ignore' };
  checkPolicy(policy, 'intentClient');
  const half: ClientExtension = {
    side: 'client',
    name: INTENT_PACKAGE,
    ids: [INTENT_ID],
    settings: { version: INTENT_WIRE_VERSION },
  };
  policies.set(half, policy);
  return half;
}

/** The server's intent settings (`mode`, `max_intent_length`), or `undefined` when it does not negotiate the extension. */
export function getIntentSettings(client: ExtendedClient): IntentServerSettings | undefined {
  const negotiated = client.negotiated(INTENT_ID);
  if (negotiated === undefined) return undefined;
  const parsed = parseSettings<IntentServerSettings>(negotiated.settings, {
    schema: IntentServerSettingsSchema,
    majors: [1],
  });
  return parsed.ok ? parsed.settings : undefined;
}

const resultMeta = lazyValidator(IntentResultMetaSchema);

/** The server's suggestion on a result, or `undefined` (also for a malformed entry, never trusted half-way). */
export function getSuggestion(result: ToolResult): IntentResultMeta | undefined {
  const entry = result._meta?.[INTENT_ID];
  return resultMeta().Check(entry) ? entry : undefined;
}

/** `params._meta` that states the intent of one call (for `callTool` options). */
export function intentMeta(intent: string): Record<string, unknown> {
  return { [INTENT_ID]: { intent } };
}

export interface IntentCallOutcome {
  /** The result of the called tool, or of the followed one. */
  readonly result: ToolResult;
  readonly suggestion: IntentResultMeta | undefined;
  /** Whether the called tool ran (`false` when the server redirected). */
  readonly executed: boolean;
  /** The tool whose result this is, when the policy followed a suggestion. */
  readonly followed: string | undefined;
}

/**
 * Calls a tool stating why, and applies the policy to any suggestion: the
 * one given, else the one the client half was created with, else `ignore`.
 * The intent is sent only when the server negotiated the extension, cut to
 * the `max_intent_length` it advertises; a blank intent is not sent. A
 * followed call carries no intent, so a suggestion is followed at most one
 * hop.
 */
export async function callWithIntent(
  client: ExtendedClient,
  name: string,
  args: Record<string, unknown>,
  intent: string,
  policy?: IntentPolicy,
  options: CallToolOptions = {},
): Promise<IntentCallOutcome> {
  const half = client.composed.extensions.find((extension) => extension.name === INTENT_PACKAGE);
  const chosen = policy ?? (half === undefined ? undefined : policies.get(half)) ?? { policy: 'ignore' };
  checkPolicy(chosen, 'callWithIntent');
  const negotiated = client.negotiated(INTENT_ID);
  const max = getIntentSettings(client)?.max_intent_length;
  const stated = max === undefined ? intent : truncateCodePoints(intent, max);
  const meta =
    negotiated === undefined || stated.trim() === ''
      ? options.meta
      : { ...options.meta, [negotiated.id]: { intent: stated } };
  const result = await client.callTool(name, args, { ...options, meta });
  const suggestion = negotiated === undefined ? undefined : getSuggestion(result);
  const executed = suggestion?.executed ?? true;
  const outcome: IntentCallOutcome = { result, suggestion, executed, followed: undefined };
  if (suggestion === undefined || chosen.policy === 'ignore') return outcome;
  if (chosen.onSuggestion !== undefined) chosen.onSuggestion(suggestion, name);
  // A suggestion is not a problem: it goes to the debug channel, never to warnings.
  else if (chosen.policy === 'log')
    client.composed.logger.debug?.(
      `intent: the server suggests ${suggestion.suggestion.recommended_tool} instead of ${name}: ${suggestion.suggestion.reason}`,
    );
  if (chosen.policy !== 'follow') return outcome;
  const target = suggestion.suggestion.recommended_tool;
  if (!(chosen.allowTools ?? []).includes(target)) return outcome;
  if (executed && chosen.followExecuted !== true) return outcome;
  const nextArgs = chosen.mapArguments === undefined ? args : chosen.mapArguments(suggestion.suggestion, args);
  if (nextArgs === undefined) return outcome;
  return {
    result: await client.callTool(target, nextArgs, { ...options, meta: options.meta }),
    suggestion,
    executed,
    followed: target,
  };
}
