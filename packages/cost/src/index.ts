/** The `@ext/cost` entry: the identifier, the wire schemas (through `COST_SCHEMAS`) and their JSON Schema, the wire types, the handler's `costOf` and the settings reader. */
export {
  COST_ID,
  COST_PACKAGE,
  COST_WIRE_VERSION,
  COST_CATEGORIES,
  LATENCY_CLASSES,
  RATE_LIMIT_WINDOWS,
  COST_SCHEMAS,
  costJsonSchema,
} from './schema.js';
export type {
  CostCategory,
  LatencyClass,
  RateLimitWindow,
  CostInfo,
  QuotaDeclaration,
  RateLimitsDeclaration,
  CostToolMeta,
  QuotaState,
  RateLimitState,
  RateLimitStates,
  CostResultMeta,
  CostStatusParams,
  CostToolStatus,
  CostStatusResult,
  CostSettings,
} from './schema.js';
export { costOf, estimateCallUnits } from './locals.js';
export type { CostCall } from './locals.js';
export { getCostSettings } from './settings.js';
