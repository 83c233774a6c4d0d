/** The content negotiation extension's identifiers and wire shapes (TypeBox schemas and their JSON Schema document). */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The SEP-2133 identifier of this extension: `io.github.mcp-ext/content-negotiation`. */
export const CONTENT_NEGOTIATION_ID: string = extensionId('content-negotiation');

/**
 * The identifier of the SEP draft this extension implements. A server
 * accepts it from clients only when its author opts in
 * (`acceptDraftIdentifier`), and then answers under it.
 */
export const CONTENT_NEGOTIATION_DRAFT_ID = 'io.modelcontextprotocol/content-negotiation';

/** Wire contract version this package speaks (`settings.version`). */
export const CONTENT_NEGOTIATION_WIRE_VERSION = '1.0';

/** npm package name, as dependency lists spell it (`ctx.negotiated()` takes the identifier). */
export const CONTENT_NEGOTIATION_PACKAGE_NAME = '@ext/content-negotiation';

/** Most feature tags read from one list; the rest are ignored with a warning. */
export const MAX_FEATURES = 32;

/** Longest feature tag accepted, in characters; longer ones are dropped with a warning. */
export const MAX_FEATURE_LENGTH = 64;

export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/content-negotiation/1.0';

const VERSION = Type.String({ pattern: '^(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})$' });

/**
 * A list of feature tags as it may arrive: entries are checked one by one
 * against the grammar, so a malformed entry (or a non-string) is dropped
 * with a warning instead of making the whole object invalid.
 */
const FEATURE_LIST = Type.Array(Type.Unknown(), {
  description: 'Feature tags (SPEC.md section 2): presence `tag`, `!tag`, `key=value`, `key!=value`, vendor `x-*`.',
});

/**
 * What a client advertises in `capabilities.extensions[id]`. `version` may
 * be absent only in an empty object (SEP-2133's "no settings").
 */
export const ContentNegotiationClientSettingsSchema = Type.Object(
  { version: Type.Optional(VERSION), features: Type.Optional(FEATURE_LIST) },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'ContentNegotiationClientSettings' },
);
export type ContentNegotiationClientSettings = Static<typeof ContentNegotiationClientSettingsSchema>;

/** What a server advertises: only the wire version. Unknown fields are ignored. */
export const ContentNegotiationServerSettingsSchema = Type.Object(
  { version: Type.Optional(VERSION) },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'ContentNegotiationServerSettings' },
);
export type ContentNegotiationServerSettings = Static<typeof ContentNegotiationServerSettingsSchema>;

/** `params._meta[id]` of one request: features that override the advertised ones for this call only. */
export const FeatureOverrideSchema = Type.Object(
  { features: FEATURE_LIST },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'ContentNegotiationRequestMeta' },
);
export type FeatureOverride = Static<typeof FeatureOverrideSchema>;

/**
 * `result._meta[id]`: the features the server applied to this result, in
 * canonical form (like HTTP `Vary`, but naming the variant served). Always
 * `format=` and `verbosity=` when a rendering helper built the result;
 * empty when the handler varied nothing.
 */
export const AppliedFeaturesSchema = Type.Object(
  {
    features: Type.Array(Type.String({ minLength: 1, maxLength: MAX_FEATURE_LENGTH }), {
      maxItems: MAX_FEATURES,
      description: 'Canonical feature tags the server applied.',
    }),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'ContentNegotiationResultMeta' },
);
export type AppliedFeatures = Static<typeof AppliedFeaturesSchema>;

/** Every wire shape of this extension, by name. */
export const CONTENT_NEGOTIATION_SCHEMAS = {
  ContentNegotiationClientSettings: ContentNegotiationClientSettingsSchema,
  ContentNegotiationServerSettings: ContentNegotiationServerSettingsSchema,
  ContentNegotiationRequestMeta: FeatureOverrideSchema,
  ContentNegotiationResultMeta: AppliedFeaturesSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function contentNegotiationJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(CONTENT_NEGOTIATION_SCHEMAS).map(([name, schema]) => [
      name,
      JSON.parse(JSON.stringify(schema)) as unknown,
    ]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/content-negotiation.json`,
    title: 'MCP content negotiation extension (io.github.mcp-ext/content-negotiation)',
    description:
      'Wire payloads of the content negotiation extension: settings, the per-call override and the applied-features echo.',
    $defs: defs,
  };
}
