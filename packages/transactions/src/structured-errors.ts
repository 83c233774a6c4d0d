/**
 * Structured error objects (the shape `@ext/errors` sends): recognising one,
 * finding it behind a failure, and turning a peer's back into an `ExtensionError`.
 */
import {
  ERROR_CATEGORIES,
  ExtensionError,
  extensionId,
  WireError,
  type StructuredError,
  type ToolResult,
} from '@ext/core';

/** Where `@ext/errors` puts the structured error of a failed tool result (this package does not import it). */
const ERRORS_ID = extensionId('errors');

/** Whether `value` is a structured error object (a peer's, so checked field by field). */
export function isStructuredError(value: unknown): value is StructuredError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    (ERROR_CATEGORIES as readonly unknown[]).includes(candidate.category)
  );
}

/** The structured error of something thrown, when it is an `ExtensionError`: foreign errors leak nothing. */
export function structuredFrom(error: unknown): StructuredError | undefined {
  return ExtensionError.isInstance(error) ? error.toStructured() : undefined;
}

/** The structured error a failed tool result carries (`@ext/errors`), if any. */
export function errorOfResult(result: ToolResult): StructuredError | undefined {
  const candidate = result._meta?.[ERRORS_ID];
  return isStructuredError(candidate) ? candidate : undefined;
}

/** An `ExtensionError` for a structured error object received from a peer. */
export function fromStructured(error: StructuredError, cause: unknown): ExtensionError {
  return new ExtensionError(error.category, error.code, error.message, {
    cause,
    ...(error.retry_after_seconds !== undefined ? { retryAfterSeconds: error.retry_after_seconds } : {}),
    ...(error.user_actionable !== undefined ? { userActionable: error.user_actionable } : {}),
    ...(error.suggestion !== undefined ? { suggestion: error.suggestion } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...(error.documentation_url !== undefined ? { documentationUrl: error.documentation_url } : {}),
  });
}

/**
 * The structured error behind any failure: a method's JSON-RPC error data,
 * a tool result's `_meta["io.github.mcp-ext/errors"]`, an `ExtensionError`.
 */
export function structuredErrorOf(failure: unknown): StructuredError {
  if (ExtensionError.isInstance(failure)) return failure.toStructured();
  if (WireError.isInstance(failure)) {
    if (isStructuredError(failure.data)) return failure.data;
    return { code: 'PROTOCOL_ERROR', message: failure.message, category: 'permanent', details: { code: failure.code } };
  }
  if (typeof failure === 'object' && failure !== null && 'content' in failure) {
    const result = failure as ToolResult;
    const meta = errorOfResult(result);
    if (meta) return meta;
    const text = result.content.find((block) => block.type === 'text')?.text;
    return { code: 'TOOL_FAILED', message: typeof text === 'string' ? text : 'The tool failed', category: 'permanent' };
  }
  return {
    code: 'UNKNOWN_ERROR',
    message: failure instanceof Error ? failure.message : String(failure),
    category: 'transient',
  };
}
