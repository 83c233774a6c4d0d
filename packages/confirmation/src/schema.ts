/** The wire contract: the identifier, the version, and one TypeBox schema per payload (shipped as `schema.json`). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/confirmation`. */
export const CONFIRMATION_ID = extensionId('confirmation');

/** npm package name; the core negotiates extensions by it. */
export const CONFIRMATION_PACKAGE = '@ext/confirmation';

/** Wire contract version this package speaks. */
export const CONFIRMATION_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/confirmation/1.0';

/** Impact levels of an operation (seed schema `ToolDefinition.risk_level`). */
export const RISK_LEVELS = ['safe', 'reversible', 'destructive'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

const RiskLevelSchema = Type.Union([Type.Literal('safe'), Type.Literal('reversible'), Type.Literal('destructive')]);

/** Confirmation tokens: 43 base64url characters (256 random bits). */
export const TOKEN_PATTERN_SOURCE = '^[A-Za-z0-9_-]{43}$';
/** Grant identifiers share the token alphabet and length. */
export const GRANT_PATTERN_SOURCE = TOKEN_PATTERN_SOURCE;

/** `Tool._meta[CONFIRMATION_ID]`: the gate a tool declares (field names as in the seed manifest schema). */
export const ConfirmationToolMetaSchema = Type.Object(
  {
    requires_confirmation: Type.Boolean(),
    risk_level: RiskLevelSchema,
    confirmation_message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'ConfirmationToolMeta' },
);
export type ConfirmationToolMeta = Static<typeof ConfirmationToolMetaSchema>;

/**
 * `params._meta[CONFIRMATION_ID]` on a retry: the token the user approved,
 * or a grant to draw on. Closed, with exactly one of the two (CONF-9a): a
 * client with neither sends no entry at all.
 */
export const ConfirmationRequestMetaSchema = Type.Object(
  {
    confirmation_token: Type.Optional(Type.String({ pattern: TOKEN_PATTERN_SOURCE })),
    grant_id: Type.Optional(Type.String({ pattern: GRANT_PATTERN_SOURCE })),
  },
  {
    $id: `${SCHEMA_BASE}/request-meta.json`,
    title: 'ConfirmationRequestMeta',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  },
);
export type ConfirmationRequestMeta = Static<typeof ConfirmationRequestMetaSchema>;

/** `result._meta[CONFIRMATION_ID]` of a call held for confirmation (not an error). */
export const ConfirmationRequiredMetaSchema = Type.Object(
  {
    status: Type.Literal('confirmation_required'),
    confirmation_token: Type.String({ pattern: TOKEN_PATTERN_SOURCE }),
    tool: Type.String(),
    message: Type.String(),
    risk_level: RiskLevelSchema,
    expires_at: Type.String({ format: 'date-time' }),
  },
  { $id: `${SCHEMA_BASE}/confirmation-required.json`, title: 'ConfirmationRequiredMeta' },
);
export type ConfirmationRequiredMeta = Static<typeof ConfirmationRequiredMetaSchema>;

/** `result._meta[CONFIRMATION_ID]` of a call that ran after a confirmation. */
export const ConfirmedMetaSchema = Type.Object(
  {
    status: Type.Literal('confirmed'),
    via: Type.Union([Type.Literal('token'), Type.Literal('grant'), Type.Literal('elicitation')]),
    grant_calls_remaining: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: `${SCHEMA_BASE}/confirmed.json`, title: 'ConfirmedMeta' },
);
export type ConfirmedMeta = Static<typeof ConfirmedMetaSchema>;

/** What the server advertises. Unknown fields are ignored. */
export const ConfirmationServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    token_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    max_batch_size: Type.Optional(Type.Integer({ minimum: 1 })),
    grants: Type.Optional(
      Type.Object({ max_calls: Type.Integer({ minimum: 1 }), max_duration_seconds: Type.Integer({ minimum: 1 }) }),
    ),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'ConfirmationServerSettings' },
);
export type ConfirmationServerSettings = Static<typeof ConfirmationServerSettingsSchema>;

/** What the client advertises: only the wire version. */
export const ConfirmationClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'ConfirmationClientSettings' },
);
export type ConfirmationClientSettings = Static<typeof ConfirmationClientSettingsSchema>;

/** Params of `<id>/approve`: several tokens the user approved in one dialog. */
export const ApproveParamsSchema = Type.Object(
  { confirmation_tokens: Type.Array(Type.String(), { minItems: 1 }) },
  { $id: `${SCHEMA_BASE}/approve-params.json`, title: 'ApproveParams' },
);
export type ApproveParams = Static<typeof ApproveParamsSchema>;

/** Result of `<id>/approve`: which tokens are now approved and why the others are not. */
export const ApproveResultSchema = Type.Object(
  {
    batch_id: Type.String(),
    approved: Type.Array(Type.String()),
    rejected: Type.Array(
      Type.Object({ confirmation_token: Type.String(), code: Type.String(), message: Type.String() }),
    ),
  },
  { $id: `${SCHEMA_BASE}/approve-result.json`, title: 'ApproveResult' },
);
export type ApproveResult = Static<typeof ApproveResultSchema>;

/** Params of `<id>/grant`: a bounded, time-boxed approval of N calls of one tool. */
export const GrantParamsSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1 }),
    max_calls: Type.Integer({ minimum: 1 }),
    duration_seconds: Type.Integer({ minimum: 1 }),
  },
  { $id: `${SCHEMA_BASE}/grant-params.json`, title: 'GrantParams' },
);
export type GrantParams = Static<typeof GrantParamsSchema>;

/** Result of `<id>/grant`. */
export const GrantResultSchema = Type.Object(
  {
    grant_id: Type.String({ pattern: GRANT_PATTERN_SOURCE }),
    tool: Type.String(),
    max_calls: Type.Integer({ minimum: 1 }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { $id: `${SCHEMA_BASE}/grant-result.json`, title: 'GrantResult' },
);
export type GrantResult = Static<typeof GrantResultSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const CONFIRMATION_SCHEMAS = {
  ConfirmationToolMeta: ConfirmationToolMetaSchema,
  ConfirmationRequestMeta: ConfirmationRequestMetaSchema,
  ConfirmationRequiredMeta: ConfirmationRequiredMetaSchema,
  ConfirmedMeta: ConfirmedMetaSchema,
  ConfirmationServerSettings: ConfirmationServerSettingsSchema,
  ConfirmationClientSettings: ConfirmationClientSettingsSchema,
  ApproveParams: ApproveParamsSchema,
  ApproveResult: ApproveResultSchema,
  GrantParams: GrantParamsSchema,
  GrantResult: GrantResultSchema,
} as const;

/** Every wire shape as one JSON Schema 2020-12 document (shipped as `schema.json`). */
export function confirmationJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(CONFIRMATION_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/confirmation.json`,
    title: 'MCP confirmation extension (io.github.mcp-ext/confirmation)',
    description:
      'Wire payloads of the confirmation extension: tool metadata, request and result _meta entries, methods, settings.',
    $defs: defs,
  };
}
