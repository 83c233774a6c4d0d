/**
 * Why `mcp-ext-gateway` cannot serve a config, as the operator reads it:
 * the config file first, then the field at fault (`gateway.yaml: identity
 * must say ...`, `gateway.yaml: listen: ... EADDRINUSE ...`). Pure.
 */
import { ConfigurationError } from '@ext/core';
import { configError, GatewayConfigError } from './config/errors.js';
import type { GatewayConfig } from './config/schema.js';
import { httpIdentityFault } from './identity.js';

/**
 * Refuses, before anything starts, a config served over HTTP that does not
 * say how callers are identified (GW-12): no upstream is started for a
 * gateway that cannot serve.
 */
export function assertServable(file: string, config: GatewayConfig, stdio: boolean): void {
  const fault = stdio ? undefined : httpIdentityFault(config.identity);
  if (fault !== undefined) throw configError(fault, { source: file });
}

/**
 * A failure to listen, as an error of the config's `listen`: core's
 * refusals already start with `listen: `, a system error (`EADDRINUSE`,
 * `EACCES`) says its code.
 */
export function listenRefusal(file: string, error: unknown): GatewayConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const problem = ConfigurationError.isInstance(error) ? message.replace(/^listen: /, '') : message;
  return new GatewayConfigError(`${file}: listen: ${problem}`, { field: 'listen', pointer: '/listen', source: file });
}
