/** Tool arguments checked against the tool's input schema, a bad one refused as a structured `invalid_input` error (CORE-25). */
import { assertJsonDepth } from '../kit/canonical.js';
import { ExtensionError } from '../contract/errors.js';
import { jsonPointer } from '../kit/pointer.js';
import { isRecord } from '../kit/records.js';
import type { StandardSchemaV1 } from '../contract/types.js';

interface Issue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

type Outcome = { readonly value: unknown; readonly issues?: undefined } | { readonly issues: readonly Issue[] };

/** The segments of an issue path, as text. */
function segments(path: Issue['path']): string[] {
  return (path ?? []).map((part) => String(typeof part === 'object' ? part.key : part));
}

/** JSON Pointer (RFC 6901) of a Standard Schema issue path. */
export function issuePointer(path: Issue['path']): string {
  return jsonPointer(...segments(path));
}

/** Dotted name of an issue path (`items.0.sku`), the form `@ext/errors` uses for `details.field`. */
function issueField(path: Issue['path']): string {
  return segments(path).join('.');
}

/**
 * Validates tool arguments against the tool's input schema (any Standard
 * Schema, zod v4 included) and returns the parsed value. Runs inside the
 * pipeline, just under the errors stage, so a bad argument becomes a
 * structured `invalid_input` error naming the field instead of the SDK's
 * plain "Input validation error". Arguments nested deeper than
 * `CANONICAL_MAX_DEPTH` are refused first (CORE-48): the stages that hash
 * arguments could not, and no stage with effects should run for them.
 */
export async function validateArguments(
  toolName: string,
  schema: StandardSchemaV1 | undefined,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  assertJsonDepth(args);
  if (schema === undefined) return args;
  const outcome = (await schema['~standard'].validate(args)) as Outcome;
  if (outcome.issues === undefined) {
    const value = outcome.value;
    return isRecord(value) ? value : args;
  }
  const first = outcome.issues[0];
  const field = issueField(first?.path);
  const where = field === '' ? 'the arguments' : `argument ${field}`;
  throw new ExtensionError(
    'invalid_input',
    'INVALID_INPUT',
    `Invalid arguments for tool "${toolName}": ${where}: ${first?.message ?? 'invalid'}`,
    {
      userActionable: true,
      suggestion: "Fix the named argument to match the tool's input schema and call again.",
      // `field` names the argument, `pointer` locates it (RFC 6901), as every extension's errors do.
      details: {
        field,
        pointer: issuePointer(first?.path),
        issues: outcome.issues.slice(0, 10).map((issue) => ({
          field: issueField(issue.path),
          pointer: issuePointer(issue.path),
          message: issue.message,
        })),
      },
    },
  );
}
