import type { StandardSchemaV1 } from '@modelcontextprotocol/server';

/** Narrows an unknown JSON value to a plain object, or `undefined`. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A Standard Schema that accepts any object. The SDK asks for a schema on
 * custom methods and notifications; extension payloads are validated by the
 * extension itself (TypeBox, at its boundary), so the adapter stays out of
 * the way and only guarantees an object.
 */
export const anyObject: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'io.github.mcp-ext',
    validate: (value) => {
      const record = asRecord(value);
      return record ? { value: record } : { issues: [{ message: 'expected an object' }] };
    },
  },
};
