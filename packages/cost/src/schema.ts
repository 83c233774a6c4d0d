/** The identifier, the wire version and one TypeBox schema per wire payload, with the JSON Schema document of them all. */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/cost`. */
export const COST_ID = extensionId('cost');

/** npm package name; the core negotiates extensions by it. */
export const COST_PACKAGE = '@ext/cost';

/** Wire contract version this package speaks. */
export const COST_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/cost/1.0';

/** Cost classes of a tool (seed schema `CostInfo.category`). */
export const COST_CATEGORIES = ['free', 'metered', 'requires_approval'] as const;
export type CostCategory = (typeof COST_CATEGORIES)[number];

/** Latency classes of a tool (seed schema `ToolDefinition.latency`). */
export const LATENCY_CLASSES = ['instant', 'seconds', 'minutes'] as const;
export type LatencyClass = (typeof LATENCY_CLASSES)[number];

/** The rate-limit windows a tool may declare, with their length in seconds (`requests_per_minute` and `_per_day` as in the seed `RateLimits`). */
export const RATE_LIMIT_WINDOWS = {
  requests_per_minute: 60,
  requests_per_hour: 3_600,
  requests_per_day: 86_400,
} as const;
export type RateLimitWindow = keyof typeof RATE_LIMIT_WINDOWS;

/** Longest quota window accepted: 366 days. */
export const MAX_WINDOW_SECONDS = 31_622_400;

/**
 * How a quota's window runs (COST-20): `sliding` (the default) counts the
 * charges of the last `window_seconds`, so no span of that length admits
 * more than the limit; `fixed` counts per window aligned to the Unix epoch.
 */
export const QUOTA_WINDOW_MODES = ['sliding', 'fixed'] as const;
export type QuotaWindowMode = (typeof QUOTA_WINDOW_MODES)[number];

/** Quota pools are named like identifiers: letters, digits, `_`, `-`, `.`. */
export const POOL_PATTERN_SOURCE = '^[A-Za-z0-9_.-]{1,64}$';

const CategorySchema = Type.Union([Type.Literal('free'), Type.Literal('metered'), Type.Literal('requires_approval')]);
const LatencySchema = Type.Union([Type.Literal('instant'), Type.Literal('seconds'), Type.Literal('minutes')]);
const Timestamp = Type.String({ format: 'date-time' });

/** `cost` inside the tool metadata: the seed's `CostInfo`, with `estimated_units` always present. */
export const CostInfoSchema = Type.Object(
  {
    category: CategorySchema,
    estimated_units: Type.Number({ minimum: 0 }),
    unit_label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { title: 'CostInfo' },
);
export type CostInfo = Static<typeof CostInfoSchema>;

/** A declared quota: at most `limit` units per caller in any `window_seconds` (sliding), or in each fixed window. */
export const QuotaDeclarationSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1 }),
    window_seconds: Type.Integer({ minimum: 1, maximum: MAX_WINDOW_SECONDS }),
    window: Type.Optional(Type.Union([Type.Literal('sliding'), Type.Literal('fixed')])),
    pool: Type.Optional(Type.String({ pattern: POOL_PATTERN_SOURCE })),
  },
  { title: 'QuotaDeclaration' },
);
export type QuotaDeclaration = Static<typeof QuotaDeclarationSchema>;

/** Declared rate limits: calls per caller in fixed windows (seed `RateLimits` field names). */
export const RateLimitsDeclarationSchema = Type.Object(
  {
    requests_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
    requests_per_hour: Type.Optional(Type.Integer({ minimum: 1 })),
    requests_per_day: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { title: 'RateLimitsDeclaration' },
);
export type RateLimitsDeclaration = Static<typeof RateLimitsDeclarationSchema>;

/** `Tool._meta[COST_ID]`: what a call of the tool costs, how long it takes, and its limits. */
export const CostToolMetaSchema = Type.Object(
  {
    cost: CostInfoSchema,
    latency: Type.Optional(LatencySchema),
    quota: Type.Optional(QuotaDeclarationSchema),
    rate_limits: Type.Optional(RateLimitsDeclarationSchema),
  },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'CostToolMeta' },
);
export type CostToolMeta = Static<typeof CostToolMetaSchema>;

/** A caller's standing against a quota (the seed's `quota: { remaining, resets_at }`, completed). */
export const QuotaStateSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1 }),
    used: Type.Integer({ minimum: 0 }),
    remaining: Type.Integer({ minimum: 0 }),
    resets_at: Timestamp,
    window_seconds: Type.Integer({ minimum: 1 }),
    pool: Type.Optional(Type.String({ pattern: POOL_PATTERN_SOURCE })),
  },
  { title: 'QuotaState' },
);
export type QuotaState = Static<typeof QuotaStateSchema>;

/** A caller's standing against one rate-limit window. */
export const RateLimitStateSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1 }),
    remaining: Type.Integer({ minimum: 0 }),
    resets_at: Timestamp,
  },
  { title: 'RateLimitState' },
);
export type RateLimitState = Static<typeof RateLimitStateSchema>;

const RateLimitStatesSchema = Type.Object({
  requests_per_minute: Type.Optional(RateLimitStateSchema),
  requests_per_hour: Type.Optional(RateLimitStateSchema),
  requests_per_day: Type.Optional(RateLimitStateSchema),
});
export type RateLimitStates = Static<typeof RateLimitStatesSchema>;

/** `result._meta[COST_ID]`: what this call used and what the caller has left. */
export const CostResultMetaSchema = Type.Object(
  {
    units_used: Type.Number({ minimum: 0 }),
    estimated_units: Type.Number({ minimum: 0 }),
    unit_label: Type.Optional(Type.String()),
    quota: Type.Optional(QuotaStateSchema),
    rate_limits: Type.Optional(RateLimitStatesSchema),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'CostResultMeta' },
);
export type CostResultMeta = Static<typeof CostResultMetaSchema>;

/** Longest list of tool names one status request may name. */
export const MAX_STATUS_TOOLS = 100;

/** Params of `COST_ID/status`: the tools to report on (default: every tool with a declaration). */
export const CostStatusParamsSchema = Type.Object(
  {
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: MAX_STATUS_TOOLS })),
  },
  { $id: `${SCHEMA_BASE}/status-params.json`, title: 'CostStatusParams' },
);
export type CostStatusParams = Static<typeof CostStatusParamsSchema>;

/** One tool in a status answer: its declaration and the caller's standing now. */
export const CostToolStatusSchema = Type.Object(
  {
    tool: Type.String(),
    cost: CostInfoSchema,
    latency: Type.Optional(LatencySchema),
    quota: Type.Optional(QuotaStateSchema),
    rate_limits: Type.Optional(RateLimitStatesSchema),
  },
  { title: 'CostToolStatus' },
);
export type CostToolStatus = Static<typeof CostToolStatusSchema>;

/** Result of `COST_ID/status`. */
export const CostStatusResultSchema = Type.Object(
  { tools: Type.Array(CostToolStatusSchema) },
  { $id: `${SCHEMA_BASE}/status-result.json`, title: 'CostStatusResult' },
);
export type CostStatusResult = Static<typeof CostStatusResultSchema>;

/** What either side advertises in `capabilities.extensions[COST_ID]`: the wire version. Unknown fields are ignored. */
export const CostSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/settings.json`, title: 'CostSettings' },
);
export type CostSettings = Static<typeof CostSettingsSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const COST_SCHEMAS = {
  CostInfo: CostInfoSchema,
  QuotaDeclaration: QuotaDeclarationSchema,
  RateLimitsDeclaration: RateLimitsDeclarationSchema,
  CostToolMeta: CostToolMetaSchema,
  QuotaState: QuotaStateSchema,
  RateLimitState: RateLimitStateSchema,
  CostResultMeta: CostResultMetaSchema,
  CostStatusParams: CostStatusParamsSchema,
  CostToolStatus: CostToolStatusSchema,
  CostStatusResult: CostStatusResultSchema,
  CostSettings: CostSettingsSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function costJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(COST_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/cost.json`,
    title: 'MCP cost extension (io.github.mcp-ext/cost)',
    description: 'Wire payloads of the cost extension: tool metadata, result _meta entry, status method, settings.',
    $defs: defs,
  };
}
