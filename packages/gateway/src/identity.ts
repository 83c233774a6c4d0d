/**
 * Who calls the gateway over HTTP: an API key from the config (bearer or
 * `x-api-key`) naming a principal and the scopes it grants, or one shared
 * caller.
 */
import { ConfigurationError, type IdentifyResult } from '@ext/core';
import type { GatewayConfig } from './config/schema.js';

/** The part of `createHttpHandler`'s options that says how callers are identified. */
export type CallerIdentification =
  { readonly identify: (request: Request) => IdentifyResult } | { readonly anonymous: 'shared' };

function presentedKey(request: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  return bearer?.[1] ?? request.headers.get('x-api-key') ?? undefined;
}

export function callerIdentification(identity: GatewayConfig['identity']): CallerIdentification {
  const keys = new Map<string, IdentifyResult>(
    Object.entries(identity?.apiKeys ?? {}).map(([key, caller]) => [
      key,
      typeof caller === 'string' ? caller : { principal: caller.principal, scopes: caller.scopes ?? [] },
    ]),
  );
  if (keys.size > 0) return { identify: (request) => keys.get(presentedKey(request) ?? '') };
  if (identity?.anonymous === true) return { anonymous: 'shared' };
  throw new ConfigurationError(
    'CALLERS_NOT_IDENTIFIED',
    'identity: serving over HTTP needs identity.apiKeys (a key per caller) or identity.anonymous: true (one shared caller, local use only)',
  );
}
