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
} from './identifiers.js';
export type { IdentifierCheck } from './identifiers.js';
export { parseSettingsVersion, parseSettings } from './settings.js';
export { PROTOCOL_VERSIONS } from './protocol-versions.js';
export type { SettingsVersion, SettingsSpec, SettingsResult } from './settings.js';
export { canonicalJson, canonicalHash, jsonEqual, CANONICAL_MAX_DEPTH, JSON_TOO_DEEP_CODE } from './canonical.js';
export type { JsonValue } from './canonical.js';
export { consoleLogger, silentLogger, pinoLogger } from './logger.js';
export type { Logger, ObjectFirstLogger } from './logger.js';
export { newCorrelationId, logInternalError, withCorrelationId } from './internal-errors.js';
export type { InternalErrorReport } from './internal-errors.js';
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
} from './errors.js';
export type {
  ErrorCategory,
  StructuredError,
  ExtensionErrorOptions,
  StoreUnavailableErrorOptions,
  StoreUnavailableReason,
} from './errors.js';
export { StructuredErrorSchema } from './structured-error-schema.js';
export { PIPELINE_STAGES, mandatory } from './extension.js';
export type {
  PipelineStage,
  StagePlacement,
  AdvertisedSettings,
  ServerAttachment,
  ServerExtension,
  ClientExtension,
  OutgoingCall,
  RequestContext,
  ServingServer,
  CallContext,
  ToolHandler,
  ToolMiddleware,
  ToolNext,
  MethodHandler,
  ComposedServer,
  ComposedClient,
  NegotiationTable,
} from './extension.js';
export type { ExtensionResources, ResourceContents, ResourceReadResult } from './extension-resources.js';
export { composeServer, composeClient } from './compose.js';
export type { ComposeOptions } from './compose.js';
export { MemoryStore } from './memory-store.js';
export type { MemoryStoreOptions } from './memory-store.js';
export type { Store, StoreHealth, SetOptions, StreamEntry, ReadOptions, AppendOptions, Unsubscribe } from './store.js';
export { StoreAvailability } from './store-availability.js';
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
} from './types.js';
export type {
  ExtendedServer,
  ExtendedClient,
  ToolConfig,
  CallToolOptions,
  ServerAdapterOptions,
  ClientAdapterOptions,
  ServerExtensionList,
  ClientExtensionList,
} from './host.js';
export { createRequestContext, createCallContext, readServerIdentity } from './context.js';
export type { RequestFacts } from './context.js';
export { ANONYMOUS_PRINCIPAL, LOCAL_PRINCIPAL, readIdentifyResult } from './identity.js';
export type { IdentifyResult } from './identity.js';
export type { HttpIdentityOptions } from './http-identity.js';
export {
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  getCallPresentation,
  setCallPresentation,
} from './presentation.js';
export type { CallPresentation, PresentationFormat, PresentationVerbosity } from './presentation.js';
export { requireApproval, approvalRequirements, grantApproval } from './approval.js';
export type { ApprovalRequirement } from './approval.js';
export { offerReplay, willReplay } from './replay.js';
export type { ReplayProbe } from './replay.js';
export { handlerStarted } from './execution.js';
export { detachedRunOf, resumesDetachedRun, setDetachedRun } from './detached-run.js';
export type { DetachedRun, DetachedProgress } from './detached-run.js';
export type { DetachedCall } from './detached-call.js';
export { registerMethodTools } from './method-tools.js';
export type { MethodTool } from './method-tools.js';
export {
  inputRequiredResult,
  isInputRequiredResult,
  elicitationAnswer,
  type InputRequiredOptions,
} from './input-round.js';
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
} from './kit/index.js';
