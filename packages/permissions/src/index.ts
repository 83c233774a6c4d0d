/** The `.` entry of `@ext/permissions`: identifiers, the wire schemas and their types, and the grant a policy returns. */
export {
  PERMISSIONS_ID,
  PERMISSIONS_PACKAGE,
  PERMISSIONS_WIRE_VERSION,
  PERMISSIONS_SCHEMAS,
  permissionsJsonSchema,
} from './schema.js';
export type {
  ScopeDefinition,
  PermissionsServerSettings,
  PermissionsClientSettings,
  PermissionsToolMeta,
  PermissionsRequestMeta,
  PermissionCheckRequest,
  PermissionCheckResponse,
  SessionToken,
  ScopeNegotiationRequest,
  DeniedScope,
  ScopeNegotiationResponse,
} from './schema.js';
export type { GrantDecision } from './logic.js';
