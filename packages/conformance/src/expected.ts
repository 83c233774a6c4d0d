/** Reading an expected-failures file (YAML): the ids of checks known to fail. */
import { parse } from 'yaml';

/**
 * Reads an expected-failures file: YAML, either a list of check ids or an
 * object with an `expected_failures` list. Anything else is a clear error.
 */
export function parseExpectedFailures(text: string, source = 'expected-failures file'): Set<string> {
  let document: unknown;
  try {
    document = parse(text, { logLevel: 'error' }) as unknown;
  } catch (error) {
    throw new Error(`${source}: not valid YAML (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  if (document === null || document === undefined) return new Set();
  const list = Array.isArray(document)
    ? (document as unknown[])
    : typeof document === 'object' && Array.isArray((document as Record<string, unknown>).expected_failures)
      ? ((document as Record<string, unknown>).expected_failures as unknown[])
      : undefined;
  if (list === undefined) throw new Error(`${source}: expected a list of check ids, or "expected_failures:" with one`);
  const ids = new Set<string>();
  list.forEach((entry, index) => {
    if (typeof entry !== 'string' || !/^[a-z0-9-]+\/[a-z0-9-]+$/.test(entry)) {
      throw new Error(
        `${source}: entry ${String(index + 1)} is ${JSON.stringify(entry)}, not a check id like "errors/structured-on-failure"`,
      );
    }
    ids.add(entry);
  });
  return ids;
}
