/**
 * Who calls the gateway over HTTP: an API key from the config (bearer or
 * `x-api-key`) naming a principal and the scopes it grants, an OAuth access
 * token from the configured identity provider (core's resource server), or
 * one shared caller. API keys are asked first; a bearer value that is no
 * key is taken as an OAuth token.
 */
import { ConfigurationError, type Logger } from '@ext/core';
import { type IdentifyResult } from '@ext/core/kit';
import { oauthResource, type OAuthResource, type OAuthResourceOptions } from '@ext/core/oauth';
import type { ConfigFault } from './config/errors.js';
import type { GatewayConfig } from './config/schema.js';

type Identity = NonNullable<GatewayConfig['identity']>;

/** The part of `createHttpHandler`'s options that says how callers are identified. */
export interface CallerIdentification {
  readonly identify?: (request: Request) => IdentifyResult;
  readonly authenticate?: OAuthResource['authenticate'];
  readonly wellKnown?: OAuthResource['wellKnown'];
  readonly anonymous?: 'shared';
}

function presentedKey(request: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  return bearer?.[1] ?? request.headers.get('x-api-key') ?? undefined;
}

function apiKeys(identity: Identity | undefined): CallerIdentification {
  const keys = new Map<string, IdentifyResult>(
    Object.entries(identity?.apiKeys ?? {}).map(([key, caller]) => [
      key,
      typeof caller === 'string' ? caller : { principal: caller.principal, scopes: caller.scopes ?? [] },
    ]),
  );
  return keys.size === 0 ? {} : { identify: (request) => keys.get(presentedKey(request) ?? '') };
}

/** The introspection client's secret, from the environment variable the config names. */
function introspectionSecret(name: string, env: NodeJS.ProcessEnv): string {
  const secret = env[name];
  if (secret === undefined || secret === '')
    throw new ConfigurationError(
      'INVALID_OPTION',
      `identity.oauth.introspection.clientSecretEnv: the environment variable ${name} is not set`,
    );
  return secret;
}

/** The config's `identity.oauth` as core's resource-server options. */
export function oauthOptions(oauth: NonNullable<Identity['oauth']>, env: NodeJS.ProcessEnv): OAuthResourceOptions {
  const { introspection, ...rest } = oauth;
  if (introspection === undefined) return rest;
  const { clientSecretEnv, ...client } = introspection;
  return { ...rest, introspection: { ...client, clientSecret: introspectionSecret(clientSecretEnv, env) } };
}

/**
 * Why `identity` cannot serve HTTP: it names no way to tell callers apart
 * (GW-12). The CLI asks before it starts anything, so such a config starts
 * no upstream.
 */
export function httpIdentityFault(identity: GatewayConfig['identity']): ConfigFault | undefined {
  const keys = Object.keys(identity?.apiKeys ?? {}).length;
  if (keys > 0 || identity?.oauth !== undefined || identity?.anonymous === true) return undefined;
  return {
    path: ['identity'],
    problem:
      'must say how callers are identified to serve HTTP: identity.apiKeys (a key per caller), identity.oauth (tokens from your identity provider) or identity.anonymous: true (one shared caller, local use only)',
  };
}

export function callerIdentification(
  identity: GatewayConfig['identity'],
  context: { readonly logger: Logger; readonly env?: NodeJS.ProcessEnv },
): CallerIdentification {
  const fault = httpIdentityFault(identity);
  if (fault !== undefined) throw new ConfigurationError('CALLERS_NOT_IDENTIFIED', `identity ${fault.problem}`);
  const keys = apiKeys(identity);
  const oauth =
    identity?.oauth === undefined
      ? undefined
      : oauthResource(oauthOptions(identity.oauth, context.env ?? process.env), { logger: context.logger });
  const shared = identity?.anonymous === true ? { anonymous: 'shared' as const } : {};
  return {
    ...keys,
    ...(oauth === undefined ? {} : { authenticate: oauth.authenticate, wellKnown: oauth.wellKnown }),
    ...shared,
  };
}
