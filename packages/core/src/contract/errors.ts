/**
 * Error types every extension shares. Two families, as in the MCP SDK:
 * local errors (a string `code`, thrown to the developer: bad options, bad
 * composition) and errors that travel (a structured error with a category,
 * rendered on the wire by `@ext/errors` when it is composed, and as a plain
 * MCP error otherwise). Every class is branded with `Symbol.for` so
 * `isInstance` works across duplicate copies of this package.
 */

const BRANDS = Symbol.for('io.github.mcp-ext/error-brands');

type Branded = { [BRANDS]?: readonly string[] };

function hasBrand(value: unknown, brand: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const brands = (value as Branded)[BRANDS];
  return Array.isArray(brands) && brands.includes(brand);
}

function addBrand(target: Error, brand: string): void {
  const existing = (target as Branded)[BRANDS] ?? [];
  Object.defineProperty(target, BRANDS, { value: [...existing, brand], enumerable: false, configurable: true });
}

/** The error categories of the structured error model (seed schema `error.json`). */
export const ERROR_CATEGORIES = ['transient', 'permanent', 'auth_required', 'invalid_input', 'rate_limited'] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** The structured error object, field names as in `seed-schemas/error.schema.json`. */
export interface StructuredError {
  code: string;
  message: string;
  category: ErrorCategory;
  retry_after_seconds?: number;
  user_actionable?: boolean;
  suggestion?: string;
  details?: Record<string, unknown>;
  documentation_url?: string;
}

export interface ExtensionErrorOptions {
  retryAfterSeconds?: number;
  userActionable?: boolean;
  suggestion?: string;
  details?: Record<string, unknown>;
  documentationUrl?: string;
  cause?: unknown;
}

/**
 * A failure meant for the peer: a tool call fails with it as a structured
 * error result; an extension method fails with it as a JSON-RPC error whose
 * `data` is the structured object.
 */
export class ExtensionError extends Error {
  static readonly brand: string = 'ExtensionError';
  readonly code: string;
  readonly category: ErrorCategory;
  readonly retryAfterSeconds: number | undefined;
  readonly userActionable: boolean | undefined;
  readonly suggestion: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly documentationUrl: string | undefined;

  constructor(category: ErrorCategory, code: string, message: string, options: ExtensionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ExtensionError';
    this.category = category;
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.userActionable = options.userActionable;
    this.suggestion = options.suggestion;
    this.details = options.details;
    this.documentationUrl = options.documentationUrl;
    addBrand(this, ExtensionError.brand);
  }

  static isInstance(value: unknown): value is ExtensionError {
    return hasBrand(value, ExtensionError.brand);
  }

  /** The wire object (seed schema shape); absent fields are omitted. */
  toStructured(): StructuredError {
    const out: StructuredError = { code: this.code, message: this.message, category: this.category };
    if (this.retryAfterSeconds !== undefined) out.retry_after_seconds = Math.max(0, Math.ceil(this.retryAfterSeconds));
    if (this.userActionable !== undefined) out.user_actionable = this.userActionable;
    if (this.suggestion !== undefined) out.suggestion = this.suggestion;
    if (this.details !== undefined) out.details = this.details;
    if (this.documentationUrl !== undefined) out.documentation_url = this.documentationUrl;
    return out;
  }
}

/** The code a {@link StoreUnavailableError} travels with. */
export const STORE_UNAVAILABLE_CODE = 'SERVICE_UNAVAILABLE';

/**
 * Why a store cannot serve now (`StoreUnavailableError.reason`, sent as
 * `details.reason`): its server does not answer or the connection dropped
 * (`unreachable`), an operation exceeded the store's bound (`timeout`),
 * another writer holds the lock (`busy`), the storage refuses writes
 * (`read_only`, `full`, `io_error`), or the file under a running store was
 * deleted or swapped for another (`file_deleted`, `file_replaced`).
 */
export const STORE_UNAVAILABLE_REASONS = [
  'unreachable',
  'timeout',
  'busy',
  'read_only',
  'full',
  'io_error',
  'file_deleted',
  'file_replaced',
] as const;
export type StoreUnavailableReason = (typeof STORE_UNAVAILABLE_REASONS)[number];

export interface StoreUnavailableErrorOptions {
  /** Default `unreachable`. */
  readonly reason?: StoreUnavailableReason | undefined;
  /** What the client is told to wait before retrying, in seconds. Default 1. */
  readonly retryAfterSeconds?: number | undefined;
  /** The store's own error, for logs; it never travels. */
  readonly cause?: unknown;
}

/**
 * A store cannot serve now. Any store throws it for an outage of what is
 * under it (a server down or frozen, a dropped connection, an operation past
 * its time bound, a file gone, read-only or full), so that every extension
 * and `@ext/errors` see one error whatever the store: it travels as
 * `transient` / `SERVICE_UNAVAILABLE` with `retry_after_seconds`, because the
 * call itself was fine and the same call can succeed once the store is back.
 * Never `permanent`: a well-behaved client would then give up for good. The
 * message is written for the peer and names nothing internal (no address, no
 * path); the store's own error is the `cause`, for the server's logs.
 */
export class StoreUnavailableError extends ExtensionError {
  static override readonly brand: string = 'StoreUnavailableError';
  readonly reason: StoreUnavailableReason;

  constructor(options: StoreUnavailableErrorOptions = {}) {
    const reason = options.reason ?? 'unreachable';
    super('transient', STORE_UNAVAILABLE_CODE, 'The server cannot use its data store right now.', {
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
      userActionable: false,
      suggestion: 'Try again shortly.',
      details: { reason },
      cause: options.cause,
    });
    this.name = 'StoreUnavailableError';
    this.reason = reason;
    addBrand(this, StoreUnavailableError.brand);
  }

  static override isInstance(value: unknown): value is StoreUnavailableError {
    return hasBrand(value, StoreUnavailableError.brand);
  }
}

/**
 * A JSON-RPC error with a numeric code and typed `data`, for failures that
 * must not be a tool result (e.g. -32021 for a missing mandatory extension).
 * Adapters turn it into their SDK's protocol error.
 */
export class WireError extends Error {
  static readonly brand: string = 'WireError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'WireError';
    this.code = code;
    this.data = data;
    addBrand(this, WireError.brand);
  }

  static isInstance(value: unknown): value is WireError {
    return hasBrand(value, WireError.brand);
  }
}

/** Standard JSON-RPC / MCP codes the core uses. */
export const ErrorCodes = {
  InvalidParams: -32602,
  MethodNotFound: -32601,
  InternalError: -32603,
  /** MCP MissingRequiredClientCapability. */
  MissingRequiredClientCapability: -32021,
  /** Our own range for extension-method failures, outside -32768..-32000. */
  ExtensionFailure: -31000,
} as const;

/** A local error: the developer configured or composed something wrongly. */
export class ConfigurationError extends Error {
  static readonly brand: string = 'ConfigurationError';
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ConfigurationError';
    this.code = code;
    addBrand(this, ConfigurationError.brand);
  }

  static isInstance(value: unknown): value is ConfigurationError {
    return hasBrand(value, ConfigurationError.brand);
  }
}

/**
 * Registers a brand on an instance; for subclasses in other packages so their
 * own `isInstance` works across copies: call it in the constructor.
 */
export function brandError(target: Error, brand: string): void {
  addBrand(target, brand);
}

/** Whether `value` carries `brand` (set by {@link brandError}). */
export function isBrandedError(value: unknown, brand: string): boolean {
  return hasBrand(value, brand);
}

/**
 * How any failure of an extension method goes on the wire as a JSON-RPC
 * error: a `WireError` as it is; an `ExtensionError` with its structured
 * object as `data` (-32602 for `invalid_input`, our -31000 otherwise);
 * anything else as an internal error that leaks nothing.
 */
export function toWireError(error: unknown): WireError {
  if (WireError.isInstance(error)) return error;
  if (ExtensionError.isInstance(error)) {
    const code = error.category === 'invalid_input' ? ErrorCodes.InvalidParams : ErrorCodes.ExtensionFailure;
    return new WireError(code, error.message, error.toStructured());
  }
  return new WireError(ErrorCodes.InternalError, 'Internal error', {
    code: 'INTERNAL_ERROR',
    message: 'Internal error',
    category: 'transient',
  } satisfies StructuredError);
}
