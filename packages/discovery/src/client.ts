/** The client half of `@ext/discovery`: advertising the extension and asking for recommendations. */
import { lazyValidator, parseSettings } from '@ext/core/kit';
import { type ClientExtension, type ExtendedClient } from '@ext/core';
import {
  DISCOVERY_ID,
  DISCOVERY_PACKAGE,
  DISCOVERY_WIRE_VERSION,
  DiscoveryServerSettingsSchema,
  RecommendResultSchema,
  type DiscoveryServerSettings,
  type MatchConfidence,
  type Recommendation,
  type RecommendResult,
} from './schema.js';

/** The client half: advertises the extension. */
export function discoveryClient(): ClientExtension {
  return {
    side: 'client',
    name: DISCOVERY_PACKAGE,
    ids: [DISCOVERY_ID],
    settings: { version: DISCOVERY_WIRE_VERSION },
  };
}

/** The server's discovery settings, or `undefined` when it does not negotiate the extension. */
export function getDiscoverySettings(client: ExtendedClient): DiscoveryServerSettings | undefined {
  const negotiated = client.negotiated(DISCOVERY_ID);
  if (negotiated === undefined) return undefined;
  const parsed = parseSettings<DiscoveryServerSettings>(negotiated.settings, {
    schema: DiscoveryServerSettingsSchema,
    majors: [1],
  });
  return parsed.ok ? parsed.settings : undefined;
}

export interface RecommendServersOptions {
  /** Most recommendations wanted (the server may cap it). */
  readonly maxResults?: number | undefined;
  /** Leave out weaker matches. */
  readonly minConfidence?: MatchConfidence | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

const resultValidator = lazyValidator(RecommendResultSchema);

/**
 * Asks the server which other MCP servers offer a capability it lacks.
 * `undefined` when the server does not negotiate the extension (nothing is
 * sent). A malformed answer throws a `TypeError` rather than being half
 * trusted; a refused request throws the server's `WireError`.
 */
export async function recommendServers(
  client: ExtendedClient,
  capabilityNeeded: string,
  options: RecommendServersOptions = {},
): Promise<RecommendResult | undefined> {
  const negotiated = client.negotiated(DISCOVERY_ID);
  if (negotiated === undefined) return undefined;
  const params: Record<string, unknown> = { capability_needed: capabilityNeeded };
  if (options.maxResults !== undefined) params.max_results = options.maxResults;
  if (options.minConfidence !== undefined) params.min_confidence = options.minConfidence;
  const method = `${negotiated.id}/recommend`;
  const requestOptions: { signal?: AbortSignal; timeoutMs?: number } = {};
  if (options.signal !== undefined) requestOptions.signal = options.signal;
  if (options.timeoutMs !== undefined) requestOptions.timeoutMs = options.timeoutMs;
  const answer = await client.request(method, params, requestOptions);
  const { _meta: _dropped, ...body } = answer;
  if (!resultValidator().Check(body)) throw new TypeError(`${method} answered a malformed result`);
  return body;
}

/** One line a person can read: `com.figma/mcp (high): Figma design files… — connect: https://… — auth: oauth2`. */
export function describeRecommendation(recommendation: Recommendation): string {
  const name =
    recommendation.title === undefined
      ? recommendation.server_name
      : `${recommendation.title} [${recommendation.server_name}]`;
  const parts = [`${name} (${recommendation.match_confidence}): ${recommendation.description}`];
  const remote = recommendation.remotes?.[0];
  const installable = recommendation.packages?.[0];
  if (remote !== undefined) parts.push(`connect: ${remote.url}`);
  else if (installable !== undefined) parts.push(`install: ${installable.registry_type} ${installable.identifier}`);
  if (recommendation.auth_flow !== undefined) parts.push(`auth: ${recommendation.auth_flow}`);
  return parts.join(' — ');
}
