/** The options of `manifestServer`, their defaults, and the checks they pass at startup. */
import { ConfigurationError, lazyValidator, positiveIntegerOption, type CompiledValidator } from '@ext/core';
import type { TSchema } from 'typebox';
import { httpUrl, type ManifestConfig } from './logic.js';
import { AuthCapabilitiesSchema, RateLimitsSchema, ServerRecommendationSchema } from './schema.js';

/** How long a client may rely on a manifest without asking again, by default. */
export const DEFAULT_TTL_SECONDS = 300;

/** The options of `manifestServer`: what the manifest says beyond what is registered, and for how long. */
export interface ManifestServerOptions extends ManifestConfig {
  /** How long a client may rely on a manifest before asking again (`ttl_seconds`). Default 300. */
  readonly ttlSeconds?: number | undefined;
}

const authValidator = lazyValidator(AuthCapabilitiesSchema);
const rateLimitsValidator = lazyValidator(RateLimitsSchema);
const recommendationValidator = lazyValidator(ServerRecommendationSchema);

function fail(message: string): never {
  throw new ConfigurationError('INVALID_OPTION', `manifestServer: ${message}`);
}

function checkShape<T, S extends TSchema>(
  name: string,
  validator: () => CompiledValidator<S>,
  value: T | undefined,
): T | undefined {
  if (value === undefined) return undefined;
  if (!validator().Check(value)) {
    const first = validator().Errors(value)[0];
    fail(`${name}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`);
  }
  return value;
}

/** `options` checked (a `ConfigurationError` `INVALID_OPTION` naming the option) and split into TTL and manifest config. */
export function resolveOptions(options: ManifestServerOptions): { ttlSeconds: number; config: ManifestConfig } {
  const ttlSeconds = positiveIntegerOption('manifestServer', 'ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS);
  if (options.description !== undefined && typeof options.description !== 'string')
    fail('description must be a string');
  if (options.homepage !== undefined && httpUrl(options.homepage) === undefined)
    fail(`homepage must be an http(s) URL, got ${JSON.stringify(options.homepage)}`);
  if (
    options.mcpSpecVersion !== undefined &&
    (typeof options.mcpSpecVersion !== 'string' || options.mcpSpecVersion === '')
  ) {
    fail('mcpSpecVersion must be a non-empty string');
  }
  if (options.include !== undefined && typeof options.include !== 'function')
    fail('include must be a function (tool) => boolean');
  if (options.recommendations !== undefined && !Array.isArray(options.recommendations))
    fail('recommendations must be an array');
  (options.recommendations ?? []).forEach((recommendation, index) => {
    checkShape(`recommendations/${String(index)}`, recommendationValidator, recommendation);
  });
  return {
    ttlSeconds,
    config: {
      description: options.description,
      homepage: options.homepage,
      mcpSpecVersion: options.mcpSpecVersion,
      auth: checkShape('auth', authValidator, options.auth),
      rateLimits: checkShape('rateLimits', rateLimitsValidator, options.rateLimits),
      recommendations: options.recommendations,
      include: options.include,
    },
  };
}
