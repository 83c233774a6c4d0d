/** The `@ext/confirmation` entry point: the identifier, the wire schemas (through `CONFIRMATION_SCHEMAS`) and types, and the settings reader. */
export {
  CONFIRMATION_ID,
  CONFIRMATION_PACKAGE,
  CONFIRMATION_WIRE_VERSION,
  RISK_LEVELS,
  CONFIRMATION_SCHEMAS,
  confirmationJsonSchema,
} from './schema.js';
export type {
  RiskLevel,
  ConfirmationToolMeta,
  ConfirmationRequestMeta,
  ConfirmationRequiredMeta,
  ConfirmedMeta,
  ConfirmationServerSettings,
  ConfirmationClientSettings,
  ApproveParams,
  ApproveResult,
  GrantParams,
  GrantResult,
} from './schema.js';
export { getConfirmationSettings } from './settings.js';
