/** The one test for "a JSON object" that boundary code uses before reading fields. */

/** True for a non-null object that is not an array (a JSON object as parsed). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, else `undefined`, for reading optional fields: `asRecord(x)?.field`. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
