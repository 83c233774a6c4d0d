/** The `@ext/transactions` entry: the identifier, the TypeBox wire schemas (by name in `schemas`) and their JSON Schema, the wire types. */
export {
  TRANSACTIONS_ID,
  TRANSACTIONS_PACKAGE,
  TRANSACTIONS_WIRE_VERSION,
  schemas,
  transactionsJsonSchema,
  CompensatedStep,
  CompensationInfo,
  StepView,
} from './schema.js';
export type {
  BeginParams,
  CommitParams,
  RollbackParams,
  StatusParams,
  StepRequestMeta,
  StepResultMeta,
  BeginResult,
  CommitResult,
  RollbackResult,
  StatusResult,
  ServerSettings,
  ClientSettings,
  ToolTransactionMeta,
} from './schema.js';
