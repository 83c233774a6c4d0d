/**
 * `@ext/core`: what extension and server authors use, without any SDK.
 * Identifiers and settings, composition and the extension contract, errors,
 * the store, identity, presentation and approvals, and the authoring kit.
 * The SDK adapters are `@ext/core/sdk-v1` and `@ext/core/sdk-v2`.
 */
export {
  VENDOR_PREFIX,
  RESERVED_SECOND_LABELS,
  parseExtensionId,
  isExtensionId,
  extensionId,
  pickCommonIdentifier,
} from './negotiation/identifiers.js';
export type { IdentifierCheck } from './negotiation/identifiers.js';
export { parseSettingsVersion, parseSettings } from './negotiation/settings.js';
export { PROTOCOL_VERSIONS } from './negotiation/protocol-versions.js';
export type { SettingsVersion, SettingsSpec, SettingsResult } from './negotiation/settings.js';
export { canonicalJson, canonicalHash, jsonEqual, CANONICAL_MAX_DEPTH, JSON_TOO_DEEP_CODE } from './kit/canonical.js';
export type { JsonValue } from './kit/canonical.js';
export { consoleLogger, silentLogger, pinoLogger } from './telemetry/logger.js';
export type { Logger, ObjectFirstLogger } from './telemetry/logger.js';
export { newCorrelationId, logInternalError, withCorrelationId } from './telemetry/internal-errors.js';
export type { InternalErrorReport } from './telemetry/internal-errors.js';
export {
  ERROR_CATEGORIES,
  ExtensionError,
  WireError,
  ConfigurationError,
  ErrorCodes,
  STORE_UNAVAILABLE_REASONS,
  StoreUnavailableError,
  brandError,
  isBrandedError,
  toWireError,
} from './contract/errors.js';
export type {
  ErrorCategory,
  StructuredError,
  ExtensionErrorOptions,
  StoreUnavailableErrorOptions,
  StoreUnavailableReason,
} from './contract/errors.js';
export { StructuredErrorSchema } from './contract/structured-error-schema.js';
export { PIPELINE_STAGES } from './contract/stages.js';
export { mandatory } from './contract/extension.js';
export type { PipelineStage, StagePlacement } from './contract/stages.js';
export type { AdvertisedSettings } from './contract/extension-half.js';
export type {
  ServerAttachment,
  ServerExtension,
  RequestContext,
  ServingServer,
  CallContext,
  ToolHandler,
  ToolMiddleware,
  ToolNext,
  MethodHandler,
  ComposedServer,
} from './contract/extension.js';
export type { ClientExtension, OutgoingCall, ComposedClient, NegotiationTable } from './contract/client-extension.js';
export type { ExtensionResources } from './contract/extension.js';
export type { ResourceContents, ResourceReadResult } from './contract/resources.js';
export { composeServer, composeClient } from './pipeline/compose.js';
export type { ComposeOptions } from './pipeline/compose.js';
export { MemoryStore } from './store/memory-store.js';
export type { MemoryStoreOptions } from './store/memory-store.js';
export type {
  Store,
  StoreHealth,
  SetOptions,
  StreamEntry,
  ReadOptions,
  AppendOptions,
  Unsubscribe,
} from './store/store.js';
export { StoreAvailability } from './store/store-availability.js';
export type {
  StandardSchemaV1,
  ContentBlock,
  ToolResult,
  ToolAnnotations,
  ToolInfo,
  ToolCall,
  ProtocolEra,
  SdkLine,
  NegotiatedExtension,
  AuthInfo,
  ElicitationRequest,
  ElicitationResponse,
  InputRound,
  ConnectionChannel,
  ServerIdentity,
  CallerIdentity,
  PrincipalSource,
} from './contract/types.js';
export type {
  ExtendedServer,
  ExtendedClient,
  ToolConfig,
  CallToolOptions,
  ServerAdapterOptions,
  ClientAdapterOptions,
  ServerExtensionList,
  ClientExtensionList,
} from './contract/host.js';
export { createRequestContext, createCallContext, readServerIdentity } from './pipeline/context.js';
export type { RequestFacts } from './pipeline/context.js';
export { ANONYMOUS_PRINCIPAL, LOCAL_PRINCIPAL, readIdentifyResult } from './contract/identity.js';
export type { IdentifyResult } from './contract/identity.js';
export type { HttpIdentityOptions } from './http/http-identity.js';
export {
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  getCallPresentation,
  setCallPresentation,
} from './cooperation/presentation.js';
export type { CallPresentation, PresentationFormat, PresentationVerbosity } from './cooperation/presentation.js';
export { requireApproval, approvalRequirements, grantApproval } from './cooperation/approval.js';
export type { ApprovalRequirement } from './cooperation/approval.js';
export { offerReplay, willReplay } from './cooperation/replay.js';
export type { ReplayProbe } from './cooperation/replay.js';
export { handlerStarted } from './cooperation/execution.js';
export { detachedRunOf, resumesDetachedRun, setDetachedRun } from './cooperation/detached-run.js';
export type { DetachedRun, DetachedProgress } from './cooperation/detached-run.js';
export type { DetachedCall } from './contract/extension.js';
export { registerMethodTools } from './pipeline/method-tools.js';
export type { MethodTool } from './pipeline/method-tools.js';
export {
  inputRequiredResult,
  isInputRequiredResult,
  elicitationAnswer,
  type InputRequiredOptions,
} from './pipeline/input-round.js';
export {
  positiveIntegerOption,
  nonNegativeIntegerOption,
  nonNegativeNumberOption,
  isRecord,
  escapePointerSegment,
  jsonPointer,
  metaPointer,
  firstViolation,
  pointerField,
  lazyValidator,
  defineLocal,
  invalidInputError,
  readMetaEntry,
  withResultMeta,
  settingsReader,
  warnDeprecated,
  renamedKeys,
  deprecatedAliases,
  metaFault,
  notificationMethod,
} from './kit/index.js';
export type {
  SchemaViolation,
  ViolationSite,
  CompiledValidator,
  LocalSlot,
  InputFault,
  Parsed,
  MetaFaultMessage,
  Renames,
  Resolved,
} from './kit/index.js';
