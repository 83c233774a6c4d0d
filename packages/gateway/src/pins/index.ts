/** Pinned tool definitions: what the gateway uses to withhold an upstream tool that changed after it was approved. */
export {
  definitionDigest,
  describeChange,
  pinnedDefinition,
  toolDefinition,
  PINNED_FIELDS,
  ToolDefinitionSchema,
} from './definition.js';
export type { JsonObject, ToolDefinition } from './definition.js';
export { judgeTool, NOT_IN_LOCK_FILE } from './check.js';
export type { Judgement, PinStatus } from './check.js';
export { reviewTool, ACCEPTED_BY_POLICY } from './review.js';
export { toolChangedError, TOOL_DEFINITION_CHANGED } from './errors.js';
export { openPinSource } from './pin-source.js';
export type { Pin, PinSource, PinSourceOptions } from './pin-source.js';
export { PinStore, pinKey, PIN_KEY_PREFIX, PIN_UNREADABLE } from './pin-store.js';
export type { PinStoreOptions } from './pin-store.js';
export { LockFilePins } from './lock-file-pins.js';
export {
  lockFileText,
  lockKey,
  parseLockFile,
  parseLockKey,
  readLockFile,
  writeLockFile,
  LockFileSchema,
  LOCK_FILE_VERSION,
} from './lock-file.js';
export type { LockEntry, LockFile } from './lock-file.js';
export {
  lockFilePath,
  DEFAULT_LOCK_FILE,
  DEFAULT_ON_TOOL_CHANGE,
  ON_TOOL_CHANGE,
  PinsConfigSchema,
} from './pins-config.js';
export type { OnToolChange, PinsConfig } from './pins-config.js';
