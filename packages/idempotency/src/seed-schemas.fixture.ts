/**
 * Subset of the seed proposal's `transactions.json` JSON Schema (the two
 * idempotency definitions), with descriptions and examples left out, from
 * the public repository davioe/mcp-extension-proposals (folder `schemas/`,
 * commit 5a9142e5027cb23f8dcb079756c1cbeb7a69c71e), CC BY 4.0. Tests check
 * this package's wire payloads against it.
 */
export const SEED_TRANSACTIONS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://mcp-extension-proposals.github.io/schemas/transactions.json',
  title: 'MCP Transactions and Idempotency',
  type: 'object',
  $defs: {
    IdempotentRequest: {
      title: 'Idempotent Request',
      type: 'object',
      required: ['idempotency_key'],
      properties: {
        idempotency_key: { type: 'string', pattern: '^[a-zA-Z0-9_\\-:.]{1,128}$' },
        idempotency_ttl_seconds: { type: 'integer', default: 86400 },
      },
    },
    IdempotencyResponse: {
      title: 'Idempotency Response Metadata',
      type: 'object',
      properties: {
        idempotency_key: { type: 'string' },
        was_replay: { type: 'boolean' },
        original_timestamp: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const;

/** The seed's structured error object (`error.json`), for checking errors this package causes. */
export const SEED_ERROR_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://mcp-extension-proposals.github.io/schemas/error.json',
  title: 'MCP Structured Error',
  type: 'object',
  required: ['code', 'message', 'category'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    category: { type: 'string', enum: ['transient', 'permanent', 'auth_required', 'invalid_input', 'rate_limited'] },
    retry_after_seconds: { type: 'integer', minimum: 0 },
    user_actionable: { type: 'boolean', default: false },
    suggestion: { type: 'string' },
    details: { type: 'object' },
    documentation_url: { type: 'string', format: 'uri' },
  },
} as const;
