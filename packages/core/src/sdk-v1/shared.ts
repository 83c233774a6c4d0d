/** What the v1 server and client adapters share: method schemas for the SDK's router (made and read), and its errors as core's. */
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { WireError } from '../contract/errors.js';
import { asRecord } from '../kit/records.js';

function newMethodSchema(method: string) {
  return z.object({ method: z.literal(method), params: z.looseObject({}).optional() });
}

// One schema per method name for the whole process: every legacy-era session builds a server that registers
// every composed method, and a zod object each (about 4 KiB) was most of what a session held.
const methodSchemas = new Map<string, ReturnType<typeof newMethodSchema>>();

/**
 * v1 routes requests and notifications by a zod schema with a `method`
 * literal. Extension payloads are validated by the extension itself (TypeBox,
 * at its boundary), so the schema only guarantees an object. The SDK only
 * reads it, so servers share one per method.
 */
export function methodSchema(method: string) {
  let schema = methodSchemas.get(method);
  if (schema === undefined) {
    schema = newMethodSchema(method);
    methodSchemas.set(method, schema);
  }
  return schema;
}

/** The method a v1 request schema is for (`shape.method.value`, zod v3 and v4 alike). */
export function methodOf(schema: unknown): unknown {
  return asRecord(asRecord(asRecord(schema)?.shape)?.method)?.value;
}

/** A result schema that accepts any object (custom methods answer extension-shaped results). */
export const anyResult = z.looseObject({});

// v1 prefixes `McpError.message` with "MCP error <code>: ", once when the server throws and once more when the client rebuilds it.
const MCP_ERROR_PREFIX = /^(?:MCP error -?\d+: )+/;

/** The SDK's protocol error as the core's SDK-neutral `WireError`. */
export function fromMcpError(error: McpError): WireError {
  return new WireError(error.code, error.message.replace(MCP_ERROR_PREFIX, ''), error.data);
}
