/** The gateway's upstream side: connections to the MCP servers behind it, one by one and as a pool. */
export { connectUpstream } from './connection.js';
export { UpstreamPool, NAMESPACE_SEPARATOR, exposedName, splitExposedName } from './pool.js';
export type { ExposedTool } from './pool.js';
export {
  UPSTREAM_UNAVAILABLE,
  UPSTREAM_TIMEOUT,
  UPSTREAM_INVALID_PARAMS,
  UPSTREAM_ERROR,
  UPSTREAM_REJECTED,
  UPSTREAM_INCOMPATIBLE,
  RETRY_AFTER_SECONDS,
} from './faults.js';
export { DEFAULT_TIMEOUT_MS } from './transport.js';
export { isRepeatable, mayRetry, UNSAFE_CALL } from './retry-decision.js';
export type { CallSafety, FaultStage } from './retry-decision.js';
export type { BreakerState, UpstreamObserver } from './resilience.js';
export type {
  UpstreamTool,
  UpstreamConnection,
  UpstreamCallOptions,
  ConnectUpstreamOptions,
  ToolsChangedListener,
} from './types.js';
