/**
 * The server half of `@ext/permissions`: assembles the extension descriptor
 * from the options, the middleware, the methods and the tool metadata each
 * tool advertises.
 */
import type { ServerExtension } from '@ext/core';
import { requiredScopesFor } from './logic.js';
import { checkMethod, negotiateMethod } from './methods.js';
import { permissionsMiddleware } from './middleware.js';
import { resolveOptions, type PermissionsServerOptions } from './options.js';
import {
  PERMISSIONS_ID,
  PERMISSIONS_PACKAGE,
  PERMISSIONS_WIRE_VERSION,
  PermissionsClientSettingsSchema,
} from './schema.js';

export type { GrantDecision, ScopeDeclaration } from './logic.js';
export type { GrantPolicy, PermissionsServerOptions } from './options.js';
export { registerPermissionTools, PERMISSION_TOOL_NAMES } from './tools.js';

/**
 * The server half of scoped permissions: declares scopes, advertises each
 * tool's `required_scopes`, serves `<id>/check` and `<id>/negotiate`, and
 * refuses a tool call whose caller lacks a required scope before anything
 * with effects runs.
 */
export function permissionsServer(options: PermissionsServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  /** Required scopes of every tool seen at registration, for `check`. */
  const toolScopes = new Map<string, readonly string[]>();
  const settings: Record<string, unknown> = {
    scopes: [...config.scopes.values()],
    session_ttl_seconds: config.sessionTtlSeconds,
    max_session_seconds: config.maxSessionSeconds,
  };
  if (config.elevationUrl !== undefined) settings.elevation_url = config.elevationUrl;

  return {
    side: 'server',
    keepsCallerState: true,
    name: PERMISSIONS_PACKAGE,
    ids: [PERMISSIONS_ID],
    settings: { version: PERMISSIONS_WIRE_VERSION, ...settings },
    peerSettings: PermissionsClientSettingsSchema,
    stage: 'permissions',
    middleware: permissionsMiddleware(config, toolScopes),
    methods: { check: checkMethod(config, toolScopes), negotiate: negotiateMethod(config) },
    toolMeta(tool) {
      // Validates at registration, so a scope typo fails at startup, naming the tool and the scope.
      const required = requiredScopesFor(tool, PERMISSIONS_ID, config.scopes);
      toolScopes.set(tool.name, required);
      return { required_scopes: required };
    },
  };
}
