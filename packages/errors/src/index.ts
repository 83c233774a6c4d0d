/**
 * `@ext/errors`: the extension's identifiers, the structured error's schema
 * and type guard, the error classes a tool throws, and `mapError`, which any
 * thrown value goes through.
 */
export {
  ERRORS_ID,
  ERRORS_V2_ID,
  ERRORS_WIRE_VERSION,
  ERRORS_PACKAGE_NAME,
  StructuredErrorSchema,
  structuredErrorJsonSchema,
  isStructuredError,
} from './schema.js';
export type { ErrorsSettings } from './schema.js';
export { ERRORS_IDENTIFIERS } from './identifiers.js';
export type { ErrorsIdentifier } from './identifiers.js';
export {
  TransientError,
  PermanentError,
  AuthRequiredError,
  InvalidInputError,
  RateLimitedError,
  toolError,
  fromStructured,
} from './classes.js';
export type { CategoryErrorOptions, ToolErrorInit } from './classes.js';
export { mapError } from './map.js';
export {
  TOOL_FAILURE_KEY,
  TOOL_FAILURE_CLASSES,
  ToolFailureSchema,
  isToolFailure,
  toToolFailure,
  fromToolFailure,
} from './tool-failure.js';
export type { ToolFailure, ToolFailureClass } from './tool-failure.js';
export type { MapErrorOptions } from './map.js';
export { ExtensionError, ERROR_CATEGORIES } from '@ext/core';
export type { StructuredError, ErrorCategory } from '@ext/core';
