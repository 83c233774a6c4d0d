export {
  ERRORS_EXTENSION_ID,
  ERRORS_V2_EXTENSION_ID,
  ERRORS_EXTENSION_IDS,
  ERRORS_WIRE_VERSION,
  ERRORS_PACKAGE_NAME,
  ErrorsSettingsSchema,
  StructuredErrorSchema,
  structuredErrorJsonSchema,
  isStructuredError,
  structuredErrorViolation,
} from './schema.js';
export type { ErrorsSettings } from './schema.js';
export { ERRORS_IDENTIFIERS, DEFAULT_ERRORS_IDENTIFIERS } from './identifiers.js';
export type { ErrorsIdentifier } from './identifiers.js';
export {
  TransientError,
  PermanentError,
  AuthRequiredError,
  InvalidInputError,
  RateLimitedError,
  ERROR_CLASSES,
  DEFAULT_CODES,
  toolError,
  fromStructured,
} from './classes.js';
export type { CategoryErrorOptions, ToolErrorInit } from './classes.js';
export { mapError, normalizeStructured, GENERIC_MESSAGES } from './map.js';
export type { MapErrorOptions } from './map.js';
export { redactText, sanitizeDetails, looksSensitive } from './sanitize.js';
export { ExtensionError, ERROR_CATEGORIES } from '@ext/core';
export type { StructuredError, ErrorCategory } from '@ext/core';
