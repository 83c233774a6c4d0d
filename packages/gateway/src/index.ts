/**
 * The `@ext/gateway` entry point: load a config, start a gateway, serve it.
 * The gateway puts the @ext extension family in front of MCP servers you
 * cannot change; `mcp-ext-gateway --config gateway.yaml` is the same as a
 * command.
 */
export { createGateway } from './gateway.js';
export type { Gateway, GatewayOptions } from './gateway.js';
export type { GatewayTool } from './gateway-tool.js';
export { checkConfig, parseConfig, loadConfig } from './config/load.js';
export type { LoadedConfig, ParseConfigOptions } from './config/load.js';
export { GatewayConfigError } from './config/errors.js';
export { gatewayJsonSchema } from './config/json-schema.js';
export { CONFIG_SCHEMA_ID, GatewayConfigSchema } from './config/schema.js';
export type {
  GatewayConfig,
  Upstream,
  StdioUpstream,
  HttpUpstream,
  ToolPolicy,
  CostPolicy,
  Compensation,
} from './config/schema.js';
export { resolveToolPolicy } from './policy/resolve.js';
export type { ResolvedToolPolicy } from './policy/resolve.js';
export { manifestPolicy } from './policy/manifest.js';
export type { ManifestPolicy } from './policy/manifest.js';
export { READY_POLICIES, READY_POLICY_NAMES } from './policies/index.js';
export type { PolicyMap, ReadyPolicyName } from './policies/index.js';
