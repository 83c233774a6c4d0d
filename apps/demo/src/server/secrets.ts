/** The tracker's secrets: given, else from the environment, else made for this process only and said once. */
import { randomBytes } from 'node:crypto';
import { consoleLogger } from '@ext/core/kit';
import { type Logger } from '@ext/core';

/**
 * A secret from `given`, else the environment variable `name`, else a random
 * one made for this process only, which is said once through `logger`:
 * what it protects does not survive a restart, nor is it shared with
 * another instance, and the operator should know which variable fixes it.
 */
export function secretFrom(
  given: string | undefined,
  name: string,
  protects: string,
  logger: Logger = consoleLogger,
): string {
  const configured = given ?? process.env[name];
  if (configured !== undefined && configured !== '') return configured;
  logger.warn(
    `tracker: ${name} is not set: ${protects} use a random secret made for this process only, so they stop working when it restarts and another instance cannot check them; set ${name} (32 bytes or more) to keep them`,
  );
  return randomBytes(32).toString('base64url');
}
