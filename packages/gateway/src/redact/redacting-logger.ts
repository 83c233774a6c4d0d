/**
 * A logger that redacts what it is given before the operator's logger sees
 * it. The gateway hands it to everything it starts (upstream pool, store,
 * composition, servers), so an upstream's stderr, an upstream's error message
 * or a store's complaint never writes a secret into a log (GW-24).
 */
import type { Logger } from '@ext/core';
import type { Redactor } from './redactor.js';

type Details = Record<string, unknown> | undefined;

/**
 * An `Error`'s message and stack are not enumerable: copied as a value it
 * would log as `{}`. Its stack (which starts with its name and message) is
 * logged as text instead, and redacted like any other.
 */
function loggable(details: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(details).map(([key, value]) =>
    value instanceof Error ? [key, value.stack ?? String(value)] : [key, value],
  );
  return Object.fromEntries(entries) as Record<string, unknown>;
}

/** `logger` with every message and details object redacted first; it has exactly the methods `logger` has. */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const message = (text: string): string => redactor.text(text).value;
  const details = (value: Details): Details =>
    value === undefined ? undefined : redactor.value(loggable(value)).value;
  // Called as methods: a logger written as a class needs its `this`.
  return {
    warn: (text, value) => {
      logger.warn(message(text), details(value));
    },
    ...(logger.debug === undefined
      ? {}
      : {
          debug: (text: string, value?: Record<string, unknown>) => {
            logger.debug?.(message(text), details(value));
          },
        }),
    ...(logger.error === undefined
      ? {}
      : {
          error: (text: string, value?: Record<string, unknown>) => {
            logger.error?.(message(text), details(value));
          },
        }),
  };
}
