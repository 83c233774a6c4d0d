/** Where the core and the extensions report what they chose to ignore. */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
  debug?(message: string, details?: Record<string, unknown>): void;
}

/** The default: warnings to stderr, which never corrupts a stdio transport. */
export const consoleLogger: Logger = {
  warn(message, details) {
    console.error(`[mcp-ext] ${message}`, details ?? '');
  },
};

/** A logger that drops everything (tests that assert on warnings pass their own). */
export const silentLogger: Logger = { warn() {} };
