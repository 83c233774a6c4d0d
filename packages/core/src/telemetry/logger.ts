/** Where the core and the extensions report what they chose to ignore. */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
  debug?(message: string, details?: Record<string, unknown>): void;
  /**
   * Failures the server answered for without their cause (internal
   * errors). Optional: a logger without it gets them through `warn`
   * ({@link logError}).
   */
  error?(message: string, details?: Record<string, unknown>): void;
}

/** The default: warnings to stderr, which never corrupts a stdio transport. */
export const consoleLogger: Logger = {
  warn(message, details) {
    console.error(`[mcp-ext] ${message}`, details ?? '');
  },
};

/** A logger that drops everything (tests that assert on warnings pass their own). */
export const silentLogger: Logger = { warn() {} };

/** Reports through `logger.error`, or `logger.warn` when the logger has no `error`. */
export function logError(logger: Logger, message: string, details?: Record<string, unknown>): void {
  // Called as methods: a logger written as a class needs its `this`.
  if (logger.error !== undefined) logger.error(message, details);
  else logger.warn(message, details);
}

/**
 * A logger that takes the details first and the message second, as pino's
 * (`logger.warn({ tool }, 'message')`) and bunyan's do. Only the methods the
 * adapter calls are named, so any such logger fits without this package
 * depending on it.
 */
export interface ObjectFirstLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  debug?(details: object, message: string): void;
}

/**
 * Adapts a pino logger (or any {@link ObjectFirstLogger}) to core's
 * `Logger`: `pinoLogger(pino({ name: 'server' }, pino.destination(2)))`.
 * Details become the log record's fields; the message its `msg`.
 */
export function pinoLogger(target: ObjectFirstLogger): Logger {
  return {
    warn(message, details) {
      target.warn(details ?? {}, message);
    },
    error(message, details) {
      target.error(details ?? {}, message);
    },
    debug(message, details) {
      target.debug?.(details ?? {}, message);
    },
  };
}
