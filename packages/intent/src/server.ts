/**
 * The server half of `@ext/intent` (the `./server` entry): the extension
 * descriptor, assembled from the options and the middleware.
 */
import type { ServerExtension } from '@ext/core';
import { intentMiddleware } from './middleware.js';
import { resolveOptions, type IntentServerOptions } from './options.js';
import { INTENT_ID, INTENT_PACKAGE, INTENT_WIRE_VERSION, type IntentServerSettings } from './schema.js';

export type { RoutingRule } from './logic.js';
export type { IntentServerOptions, RouteRequest, RouteSuggestion, Router } from './options.js';

/**
 * The server half of `@ext/intent`: reads why the client makes a call,
 * matches it against routing rules (declarative, then a function), and
 * suggests a better tool, advisory by default.
 *
 * @example
 * ```ts
 * intentServer({
 *   rules: [{ tool: 'get_recent_incidents', keywords: ['incident', 'outage'], from: ['search_issues'] }],
 *   router: ({ intent, tool }) => (tool === 'search_issues' && /last week/i.test(intent) ? { recommendedTool: 'list_recent', reason: 'Filters by date.' } : undefined),
 * });
 * ```
 */
export function intentServer(options: IntentServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const settings: IntentServerSettings = {
    version: INTENT_WIRE_VERSION,
    mode: config.mode,
    max_intent_length: config.maxIntentLength,
  };
  // Every tool registered through the core passes through toolMeta: the tools a suggestion may name.
  const served = new Set<string>();
  return {
    side: 'server',
    name: INTENT_PACKAGE,
    ids: [INTENT_ID],
    settings,
    stage: 'intent',
    middleware: intentMiddleware(config, served),
    toolMeta(tool) {
      served.add(tool.name);
      return undefined;
    },
  };
}
