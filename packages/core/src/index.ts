/**
 * `@ext/core`: the contract between a server or client and its extensions,
 * and their composition, without any SDK: identifiers, errors, the pipeline's
 * stages, the halves an extension declares and the contexts it is given, the
 * store, and the types of both. The authoring helpers are `@ext/core/kit`,
 * serving over HTTP `@ext/core/http`, the SDK adapters `@ext/core/sdk-v1` and
 * `@ext/core/sdk-v2`.
 */
export { parseExtensionId, isExtensionId, extensionId } from './negotiation/identifiers.js';
export type { IdentifierCheck } from './negotiation/identifiers.js';
export type { SettingsVersion, SettingsSpec } from './negotiation/settings.js';
export { PROTOCOL_VERSIONS } from './negotiation/protocol-versions.js';
export type { Logger } from './telemetry/logger.js';
export {
  ERROR_CATEGORIES,
  ExtensionError,
  WireError,
  ConfigurationError,
  ErrorCodes,
  STORE_UNAVAILABLE_REASONS,
  StoreUnavailableError,
} from './contract/errors.js';
export type {
  ErrorCategory,
  StructuredError,
  ExtensionErrorOptions,
  StoreUnavailableErrorOptions,
  StoreUnavailableReason,
} from './contract/errors.js';
export { PIPELINE_STAGES } from './contract/stages.js';
export type { PipelineStage, StagePlacement } from './contract/stages.js';
export type { AdvertisedSettings } from './contract/extension-half.js';
export { mandatory } from './contract/extension.js';
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
  DetachedCall,
  ExtensionResources,
} from './contract/extension.js';
export type { ClientExtension, OutgoingCall, ComposedClient, NegotiationTable } from './contract/client-extension.js';
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
export type { ExtendedServer, ExtendedClient, ToolConfig, CallToolOptions } from './contract/host.js';
export { ANONYMOUS_PRINCIPAL, LOCAL_PRINCIPAL } from './contract/identity.js';
