/** The structured error object as a TypeBox schema, for payloads that report an error. */
import Type from 'typebox';
import { ERROR_CATEGORIES } from './errors.js';

/**
 * The structured error object (seed schema `error.json`) as a TypeBox
 * schema: `result._meta[id]` of a failed tool call, `data` of a failed
 * extension method, and the `error` of any payload that reports one (a
 * failed saga step, a failed import). Unknown extra fields are allowed, as
 * in the seed. `@ext/errors` publishes it under its own `$id`; other
 * packages embed it in their payload schemas.
 */
export const StructuredErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code, UPPER_SNAKE_CASE.' }),
    message: Type.String({ description: 'Human-readable error description.' }),
    category: Type.Enum([...ERROR_CATEGORIES], {
      type: 'string',
      description: 'Drives client behaviour: retry, re-authenticate, fix parameters, wait.',
    }),
    retry_after_seconds: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Seconds to wait before retrying (transient, rate_limited).' }),
    ),
    user_actionable: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Whether the error should be surfaced to the user rather than handled silently.',
      }),
    ),
    suggestion: Type.Optional(Type.String({ description: 'A concrete next step; never security guidance.' })),
    details: Type.Optional(Type.Object({}, { description: 'Additional structured context; varies by code.' })),
    documentation_url: Type.Optional(
      Type.String({ format: 'uri', description: 'An https link explaining this error.' }),
    ),
  },
  {
    title: 'StructuredError',
    description: 'A categorized MCP tool error clients can act on: retry, inform the user, or fix the input.',
  },
);
