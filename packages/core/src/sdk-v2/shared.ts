/** What the v2 server and client adapters share: a schema that accepts any object. */
import type { StandardSchemaV1 } from '@modelcontextprotocol/server';
import { isRecord } from '../kit/records.js';

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
    validate: (value) => (isRecord(value) ? { value } : { issues: [{ message: 'expected an object' }] }),
  },
};
