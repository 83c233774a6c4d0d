/**
 * The server half of `@ext/session-state`: assembles the extension
 * descriptor from the options and the middleware, and hands handlers their
 * state through `sessionState(ctx)`.
 */
import type { ServerExtension } from '@ext/core';
import { sessionStateMiddleware } from './middleware.js';
import { resolve, type SessionStateServerOptions } from './options.js';
import {
  SESSION_STATE_ID,
  SESSION_STATE_PACKAGE,
  SESSION_STATE_WIRE_VERSION,
  SessionStateClientSettingsSchema,
  type SessionStateServerSettings,
} from './schema.js';

export { sessionState } from './locals.js';
export type { SessionStateHandle } from './locals.js';
export type { SessionStateServerOptions } from './options.js';
export type { SessionKey } from './token.js';

/**
 * The server half: a middleware at the `session-state` stage (right under
 * errors) that opens the token the client sent, hands the state to the
 * handler through {@link sessionState}, and seals what the handler set into
 * `result._meta`. Tokens are AES-256-GCM sealed, expire after `ttlSeconds`,
 * and are bound to the caller and the server name.
 */
export function sessionStateServer(options: SessionStateServerOptions): ServerExtension {
  const config = resolve(options);
  const settings: SessionStateServerSettings = {
    version: SESSION_STATE_WIRE_VERSION,
    ttl_seconds: config.ttlSeconds,
    max_token_bytes: config.maxTokenBytes,
  };
  if (config.serverName !== undefined) settings.server_name = config.serverName;
  return {
    side: 'server',
    keepsCallerState: true,
    name: SESSION_STATE_PACKAGE,
    ids: [SESSION_STATE_ID],
    settings,
    peerSettings: SessionStateClientSettingsSchema,
    stage: 'session-state',
    middleware: sessionStateMiddleware(config),
  };
}
