/**
 * One class per category, each a core `ExtensionError` (so every extension,
 * and core's `toWireError`, already knows how to put it on the wire) with
 * its own `Symbol.for` brand: `isInstance` keeps working when a project ends
 * up with two copies of this package, where `instanceof` would not.
 */
import { brandError, isBrandedError } from '@ext/core/kit';
import { ExtensionError, type ErrorCategory, type ExtensionErrorOptions, type StructuredError } from '@ext/core';

/** Options of every category class: core's options (camelCase), minus the category. */
export type CategoryErrorOptions = ExtensionErrorOptions;

/** The code a builder uses when none is given, per category. */
export const DEFAULT_CODES: Readonly<Record<ErrorCategory, string>> = {
  transient: 'SERVER_UNAVAILABLE',
  permanent: 'OPERATION_FAILED',
  auth_required: 'AUTHENTICATION_REQUIRED',
  invalid_input: 'INVALID_INPUT',
  rate_limited: 'RATE_LIMIT_EXCEEDED',
};

/** A failure that may succeed if retried as it is (a dependency is down, a lock is held). */
export class TransientError extends ExtensionError {
  static override readonly brand: string = '@ext/errors/TransientError';

  constructor(code: string, message: string, options: CategoryErrorOptions = {}) {
    super('transient', code, message, options);
    this.name = 'TransientError';
    brandError(this, TransientError.brand);
  }

  static override isInstance(value: unknown): value is TransientError {
    return isBrandedError(value, TransientError.brand);
  }
}

/** A failure that will fail again the same way: do not retry. */
export class PermanentError extends ExtensionError {
  static override readonly brand: string = '@ext/errors/PermanentError';

  constructor(code: string, message: string, options: CategoryErrorOptions = {}) {
    super('permanent', code, message, options);
    this.name = 'PermanentError';
    brandError(this, PermanentError.brand);
  }

  static override isInstance(value: unknown): value is PermanentError {
    return isBrandedError(value, PermanentError.brand);
  }
}

/** The caller must (re-)authenticate or obtain more scopes before retrying. */
export class AuthRequiredError extends ExtensionError {
  static override readonly brand: string = '@ext/errors/AuthRequiredError';

  constructor(code: string, message: string, options: CategoryErrorOptions = {}) {
    super('auth_required', code, message, options);
    this.name = 'AuthRequiredError';
    brandError(this, AuthRequiredError.brand);
  }

  static override isInstance(value: unknown): value is AuthRequiredError {
    return isBrandedError(value, AuthRequiredError.brand);
  }
}

/** The arguments are wrong: fix them, do not retry as they are. */
export class InvalidInputError extends ExtensionError {
  static override readonly brand: string = '@ext/errors/InvalidInputError';

  constructor(code: string, message: string, options: CategoryErrorOptions = {}) {
    super('invalid_input', code, message, options);
    this.name = 'InvalidInputError';
    brandError(this, InvalidInputError.brand);
  }

  static override isInstance(value: unknown): value is InvalidInputError {
    return isBrandedError(value, InvalidInputError.brand);
  }
}

/** Too many calls: wait `retryAfterSeconds`, then retry. */
export class RateLimitedError extends ExtensionError {
  static override readonly brand: string = '@ext/errors/RateLimitedError';

  constructor(code: string, message: string, options: CategoryErrorOptions = {}) {
    super('rate_limited', code, message, options);
    this.name = 'RateLimitedError';
    brandError(this, RateLimitedError.brand);
  }

  static override isInstance(value: unknown): value is RateLimitedError {
    return isBrandedError(value, RateLimitedError.brand);
  }
}

/** Every category class, by category. */
export const ERROR_CLASSES = {
  transient: TransientError,
  permanent: PermanentError,
  auth_required: AuthRequiredError,
  invalid_input: InvalidInputError,
  rate_limited: RateLimitedError,
} as const satisfies Record<
  ErrorCategory,
  new (code: string, message: string, options?: CategoryErrorOptions) => ExtensionError
>;

/** What a {@link toolError} builder takes: a message, and optionally a code and the rest. */
export interface ToolErrorInit extends CategoryErrorOptions {
  message: string;
  /** UPPER_SNAKE_CASE; default per category ({@link DEFAULT_CODES}). */
  code?: string;
}

/**
 * Builds the error to throw from a tool handler or a middleware:
 *
 * ```ts
 * throw toolError.rateLimited({ message: 'Search quota used up.', retryAfterSeconds: 42 });
 * ```
 *
 * The `@ext/errors` server middleware turns it into a structured error result.
 */
export const toolError = {
  transient: (init: ToolErrorInit): TransientError =>
    new TransientError(init.code ?? DEFAULT_CODES.transient, init.message, init),
  permanent: (init: ToolErrorInit): PermanentError =>
    new PermanentError(init.code ?? DEFAULT_CODES.permanent, init.message, init),
  authRequired: (init: ToolErrorInit): AuthRequiredError =>
    new AuthRequiredError(init.code ?? DEFAULT_CODES.auth_required, init.message, init),
  invalidInput: (init: ToolErrorInit): InvalidInputError =>
    new InvalidInputError(init.code ?? DEFAULT_CODES.invalid_input, init.message, init),
  rateLimited: (init: ToolErrorInit): RateLimitedError =>
    new RateLimitedError(init.code ?? DEFAULT_CODES.rate_limited, init.message, init),
} as const;

/**
 * Rebuilds a throwable error of the right class from a structured error
 * received from a peer (e.g. to rethrow it from a client helper).
 */
export function fromStructured(error: StructuredError): ExtensionError {
  const Class = ERROR_CLASSES[error.category];
  return new Class(error.code, error.message, {
    retryAfterSeconds: error.retry_after_seconds,
    userActionable: error.user_actionable,
    suggestion: error.suggestion,
    details: error.details,
    documentationUrl: error.documentation_url,
  });
}
