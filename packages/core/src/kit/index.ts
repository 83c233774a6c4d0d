/** The kit for extension authors: what every extension's boundary code needs, written once. */
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
