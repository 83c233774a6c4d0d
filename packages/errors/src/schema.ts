/** The errors extension's identifiers, its settings schema, and the structured error object's schema and checks. */
import { extensionId, type StructuredError } from '@ext/core';
import { isRecord, lazyValidator, StructuredErrorSchema as CoreStructuredErrorSchema } from '@ext/core/kit';
import Type, { type Static } from 'typebox';

/** The SEP-2133 identifier of this extension: `io.github.mcp-ext/errors`. */
export const ERRORS_ID: string = extensionId('errors');

/**
 * The second generation, `io.github.mcp-ext/errors-v2`: experimental and
 * opt-in (`identifiers: ['v1', 'v2']`). Its payload is the v1 object for now;
 * SPEC.md section 6 says what may change under it and never under v1.
 */
export const ERRORS_V2_ID: string = extensionId('errors', 2);

/** Every identifier this package can serve, oldest first. */
export const ERRORS_IDS: readonly string[] = [ERRORS_ID, ERRORS_V2_ID];

/** Wire contract version this package speaks (`settings.version`). */
export const ERRORS_WIRE_VERSION = '1.0';

/** npm package name, as dependency lists spell it (`ctx.negotiated()` takes the identifier). */
export const ERRORS_PACKAGE_NAME = '@ext/errors';

/**
 * The settings either side advertises in `capabilities.extensions[id]`.
 * Unknown extra fields are allowed so a newer minor never breaks an older peer.
 */
export const ErrorsSettingsSchema = Type.Object(
  { version: Type.String({ pattern: '^(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})$' }) },
  { title: 'ErrorsSettings' },
);
export type ErrorsSettings = Static<typeof ErrorsSettingsSchema>;

/**
 * The structured error object (`result._meta[id]` of a failed tool call,
 * `data` of a failed extension method): the core's schema, published here
 * under this package's `$id`. Same shape as the seed schema `error.json`:
 * unknown extra fields are allowed, as there.
 */
export const StructuredErrorSchema = Type.Object(CoreStructuredErrorSchema.properties, {
  $id: 'https://mcp-ext.github.io/schemas/errors/1.0/structured-error.json',
  title: 'StructuredError',
  description: 'A categorized MCP tool error clients can act on: retry, inform the user, or fix the input.',
});

/** The JSON Schema 2020-12 document of {@link StructuredErrorSchema}, as plain JSON (also shipped as `schema.json`). */
export const structuredErrorJsonSchema: Readonly<Record<string, unknown>> = toJsonSchemaDocument(StructuredErrorSchema);

function toJsonSchemaDocument(schema: object): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  // Identification first, as a reader expects it at the top of the file.
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: plain.$id,
    title: plain.title,
    description: plain.description,
    ...plain,
  };
}

// Compiled on first use: keeps import free of work and side effects.
const compiled = lazyValidator(StructuredErrorSchema);

/** Whether `value` is a structured error object valid against {@link StructuredErrorSchema}. Never throws. */
export function isStructuredError(value: unknown): value is StructuredError {
  if (!isRecord(value)) return false;
  return compiled().Check(value);
}

/**
 * The JSON pointer and message of the first schema violation of `value`, or
 * `undefined` when it is a valid structured error.
 */
export function structuredErrorViolation(value: unknown): { pointer: string; message: string } | undefined {
  if (isStructuredError(value)) return undefined;
  if (!isRecord(value)) return { pointer: '', message: 'must be an object' };
  const first = compiled().Errors(value)[0];
  return { pointer: first?.instancePath ?? '', message: first?.message ?? 'is invalid' };
}
