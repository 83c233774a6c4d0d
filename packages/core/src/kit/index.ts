/** The kit for extension authors: what every extension's boundary code needs, written once. */
export { VENDOR_PREFIX, RESERVED_SECOND_LABELS, pickCommonIdentifier } from '../negotiation/identifiers.js';
export { parseSettingsVersion, parseSettings } from '../negotiation/settings.js';
export type { SettingsResult } from '../negotiation/settings.js';
export { canonicalJson, canonicalHash, jsonEqual, CANONICAL_MAX_DEPTH, JSON_TOO_DEEP_CODE } from './canonical.js';
export type { JsonValue } from './canonical.js';
export { consoleLogger, silentLogger, pinoLogger } from '../telemetry/logger.js';
export type { ObjectFirstLogger } from '../telemetry/logger.js';
export { newCorrelationId, logInternalError, withCorrelationId } from '../telemetry/internal-errors.js';
export type { InternalErrorReport } from '../telemetry/internal-errors.js';
export { brandError, isBrandedError, toWireError } from '../contract/errors.js';
export { StructuredErrorSchema } from '../contract/structured-error-schema.js';
export type {
  ServerAdapterOptions,
  ClientAdapterOptions,
  ServerExtensionList,
  ClientExtensionList,
} from '../contract/host.js';
export { createRequestContext, createCallContext, readServerIdentity } from '../pipeline/context.js';
export type { RequestFacts } from '../pipeline/context.js';
export { readIdentifyResult } from '../contract/identity.js';
export type { IdentifyResult } from '../contract/identity.js';
export { registerMethodTools } from '../pipeline/method-tools.js';
export type { MethodTool } from '../pipeline/method-tools.js';
export {
  inputRequiredResult,
  isInputRequiredResult,
  elicitationAnswer,
  type InputRequiredOptions,
} from '../pipeline/input-round.js';
// The slots the pipeline itself acts on (an extension's own slots live in its package, see defineLocal).
export { requireApproval, approvalRequirements, grantApproval } from '../cooperation/approval.js';
export type { ApprovalRequirement } from '../cooperation/approval.js';
export { handlerStarted } from '../cooperation/execution.js';
export { detachedRunOf, resumesDetachedRun, setDetachedRun } from '../cooperation/detached-run.js';
export type { DetachedRun, DetachedProgress } from '../cooperation/detached-run.js';
// Helpers of its own.
export { positiveIntegerOption, nonNegativeIntegerOption, nonNegativeNumberOption } from './options.js';
export { isRecord } from './records.js';
export { escapePointerSegment, jsonPointer, metaPointer, firstViolation, pointerField } from './pointer.js';
export type { SchemaViolation, ViolationSite } from './pointer.js';
export { lazyValidator } from './validators.js';
export type { CompiledValidator } from './validators.js';
export { defineLocal } from './locals.js';
export type { LocalSlot } from './locals.js';
export { invalidInputError, readMetaEntry } from './input.js';
export { withResultMeta } from './result-meta.js';
export type { InputFault, Parsed, MetaFaultMessage } from './input.js';
export { settingsReader } from './settings-reader.js';
export { warnDeprecated, renamedKeys, deprecatedAliases } from './deprecation.js';
export type { Renames } from './deprecation.js';
export type { Resolved } from './options.js';
export { metaFault } from './input.js';
export { notificationMethod } from './notifications.js';
