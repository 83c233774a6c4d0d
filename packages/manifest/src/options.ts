/**
 * The options of `manifestServer`, their defaults, and the checks they pass
 * at startup. Options are camelCase; the parts of the manifest they describe
 * are translated to the seed's spelling here.
 */
import { ConfigurationError, type ToolInfo } from '@ext/core';
import {
  isRecord,
  lazyValidator,
  positiveIntegerOption,
  renamedKeys,
  type CompiledValidator,
  type Renames,
} from '@ext/core/kit';
import type { Static, TSchema } from 'typebox';
import { httpUrl } from './http-url.js';
import {
  AuthCapabilitiesSchema,
  RateLimitsSchema,
  ServerRecommendationSchema,
  type AuthCapabilities,
  type AuthMethod,
  type RateLimits,
  type ScopeDefinition,
  type ServerRecommendation,
} from './schema.js';

/** How long a client may rely on a manifest without asking again, by default. */
export const DEFAULT_TTL_SECONDS = 300;

/** Authentication methods, extra scopes and session TTL; the manifest's `auth` (seed `AuthCapabilities`). */
export interface ManifestAuthOptions {
  readonly methods?: readonly AuthMethod[] | undefined;
  readonly scopes?: readonly ScopeDefinition[] | undefined;
  /** Sent as `session_ttl_seconds`. */
  readonly sessionTtlSeconds?: number | undefined;
  /** @deprecated Use `sessionTtlSeconds`; the snake_case spelling goes in the next major. */
  readonly session_ttl_seconds?: number | undefined;
}

/** Server-wide rate limits; the manifest's `rate_limits` (seed `RateLimits`). */
export interface ManifestRateLimitsOptions {
  /** Sent as `requests_per_minute`. */
  readonly requestsPerMinute?: number | undefined;
  /** Sent as `requests_per_day`. */
  readonly requestsPerDay?: number | undefined;
  readonly remaining?: number | undefined;
  /** RFC 3339; sent as `resets_at`. */
  readonly resetsAt?: string | undefined;
  /** @deprecated Use `requestsPerMinute`; the snake_case spelling goes in the next major. */
  readonly requests_per_minute?: number | undefined;
  /** @deprecated Use `requestsPerDay`; the snake_case spelling goes in the next major. */
  readonly requests_per_day?: number | undefined;
  /** @deprecated Use `resetsAt`; the snake_case spelling goes in the next major. */
  readonly resets_at?: string | undefined;
}

/** Another server to recommend; one of the manifest's `recommendations` (seed `ServerRecommendation`). */
export interface ManifestRecommendationOptions {
  readonly capability: string;
  /** Sent as `server_name`; required (or its deprecated spelling). */
  readonly serverName?: string | undefined;
  /** Sent as `registry_url`. */
  readonly registryUrl?: string | undefined;
  /** Sent as `auth_flow`. */
  readonly authFlow?: string | undefined;
  /** Sent as `match_confidence`. */
  readonly matchConfidence?: ServerRecommendation['match_confidence'];
  /** @deprecated Use `serverName`; the snake_case spelling goes in the next major. */
  readonly server_name?: string | undefined;
  /** @deprecated Use `registryUrl`; the snake_case spelling goes in the next major. */
  readonly registry_url?: string | undefined;
  /** @deprecated Use `authFlow`; the snake_case spelling goes in the next major. */
  readonly auth_flow?: string | undefined;
  /** @deprecated Use `matchConfidence`; the snake_case spelling goes in the next major. */
  readonly match_confidence?: ServerRecommendation['match_confidence'];
}

/** The options of `manifestServer`: what the manifest says beyond what is registered, and for how long. */
export interface ManifestServerOptions {
  /** How long a client may rely on a manifest before asking again (`ttl_seconds`). Default 300. */
  readonly ttlSeconds?: number | undefined;
  /** `server.description`. Default: the `description` given to the SDK server, if any. */
  readonly description?: string | undefined;
  /** `server.homepage` (an http(s) URL). Default: the SDK server's `websiteUrl`, if any. */
  readonly homepage?: string | undefined;
  /** `server.mcp_spec_version`. Default: the protocol revision the request was made in, else `2025-11-25`. */
  readonly mcpSpecVersion?: string | undefined;
  /** The manifest's `auth`. Scopes and session TTL of `@ext/permissions`, when composed, are added without being listed here. */
  readonly auth?: ManifestAuthOptions | undefined;
  /** The manifest's `rate_limits`. */
  readonly rateLimits?: ManifestRateLimitsOptions | undefined;
  /** The manifest's `recommendations`. */
  readonly recommendations?: readonly ManifestRecommendationOptions[] | undefined;
  /** Which registered tools the manifest lists. Default: all of them. */
  readonly include?: ((tool: ToolInfo) => boolean) | undefined;
}

/**
 * The options a manifest is built from: the author's parts, `auth`, rate
 * limits and recommendations in the seed's spelling. Nothing has a default
 * yet: what is not given is read when the manifest is built (the SDK
 * server's description, the request's protocol revision, every tool).
 */
export type ManifestConfig = Pick<ManifestServerOptions, 'description' | 'homepage' | 'mcpSpecVersion' | 'include'> & {
  readonly auth?: AuthCapabilities | undefined;
  readonly rateLimits?: RateLimits | undefined;
  readonly recommendations?: readonly ServerRecommendation[] | undefined;
};

/** Each option's seed spelling, by its old (snake_case) name: the option's name is its camelCase. */
const AUTH_NAMES: Renames = { session_ttl_seconds: 'sessionTtlSeconds' };
const RATE_LIMIT_NAMES: Renames = {
  requests_per_minute: 'requestsPerMinute',
  requests_per_day: 'requestsPerDay',
  resets_at: 'resetsAt',
};
const RECOMMENDATION_NAMES: Renames = {
  server_name: 'serverName',
  registry_url: 'registryUrl',
  auth_flow: 'authFlow',
  match_confidence: 'matchConfidence',
};

/** An option object in the seed's spelling (the deprecated snake_case still taken, with a warning). */
function seedSpelling(option: string, value: unknown, names: Renames): unknown {
  if (!isRecord(value)) return value;
  // One warning per option and old name, whichever recommendation used it.
  const camel = renamedKeys(`manifestServer ${option.replace(/\/\d+$/, '')}`, value, names);
  const seed = new Map(Object.entries(names).map(([snake, camelName]) => [camelName, snake]));
  return Object.fromEntries(
    Object.entries(camel)
      .filter(([, field]) => field !== undefined)
      .map(([name, field]) => [seed.get(name) ?? name, field]),
  );
}

/** A schema path named as the author wrote it: `/requests_per_minute` is `/requestsPerMinute`. */
function authorPath(path: string, names: Renames): string {
  return path.replace(/[a-z]+(?:_[a-z]+)+/g, (name) => names[name] ?? name);
}

const authValidator = lazyValidator(AuthCapabilitiesSchema);
const rateLimitsValidator = lazyValidator(RateLimitsSchema);
const recommendationValidator = lazyValidator(ServerRecommendationSchema);

function fail(message: string): never {
  throw new ConfigurationError('INVALID_OPTION', `manifestServer: ${message}`);
}

function checkShape<S extends TSchema>(
  name: string,
  validator: () => CompiledValidator<S>,
  value: unknown,
  names: Renames,
): Static<S> | undefined {
  if (value === undefined) return undefined;
  const seed = seedSpelling(name, value, names);
  if (!validator().Check(seed)) {
    const first = validator().Errors(seed)[0];
    fail(`${name}${authorPath(first?.instancePath ?? '', names)} ${first?.message ?? 'is invalid'}`);
  }
  return seed;
}

/** `options` checked (a `ConfigurationError` `INVALID_OPTION` naming the option) and split into TTL and manifest config. */
export function resolveOptions(options: ManifestServerOptions): { ttlSeconds: number; config: ManifestConfig } {
  const {
    ttlSeconds = DEFAULT_TTL_SECONDS,
    description,
    homepage,
    mcpSpecVersion,
    auth,
    rateLimits,
    recommendations,
    include,
  } = options;
  positiveIntegerOption('manifestServer', 'ttlSeconds', ttlSeconds);
  if (description !== undefined && typeof description !== 'string') fail('description must be a string');
  if (homepage !== undefined && httpUrl(homepage) === undefined)
    fail(`homepage must be an http(s) URL, got ${JSON.stringify(homepage)}`);
  if (mcpSpecVersion !== undefined && (typeof mcpSpecVersion !== 'string' || mcpSpecVersion === '')) {
    fail('mcpSpecVersion must be a non-empty string');
  }
  if (include !== undefined && typeof include !== 'function') fail('include must be a function (tool) => boolean');
  if (recommendations !== undefined && !Array.isArray(recommendations)) fail('recommendations must be an array');
  const seedRecommendations = recommendations?.map((recommendation, index) =>
    checkShape(`recommendations/${String(index)}`, recommendationValidator, recommendation, RECOMMENDATION_NAMES),
  );
  return {
    ttlSeconds,
    config: {
      description,
      homepage,
      mcpSpecVersion,
      auth: checkShape('auth', authValidator, auth, AUTH_NAMES),
      rateLimits: checkShape('rateLimits', rateLimitsValidator, rateLimits, RATE_LIMIT_NAMES),
      recommendations: seedRecommendations?.filter((entry) => entry !== undefined),
      include,
    },
  };
}
