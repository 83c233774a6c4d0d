/**
 * The wire shapes of SEP-3279 "Negotiated tool result variants" (draft,
 * pull request modelcontextprotocol/modelcontextprotocol#3279, head
 * e63642f, 2026-08-19) as TypeBox schemas: the selector a client sends in
 * `params.requestedOutputs`, the variant a tool lists in `Tool.outputVariants`,
 * and the output a result carries in `outputs`. The draft gives them as
 * TypeScript only; these schemas transcribe it.
 */
import Type, { type Static } from 'typebox';

/** The audiences the draft's core protocol defines. */
export const CORE_AUDIENCES = ['assistant', 'user', 'programmatic'] as const;
export type CoreAudience = (typeof CORE_AUDIENCES)[number];

/** The formats the draft's core protocol defines. */
export const VARIANT_FORMATS = ['content', 'structured'] as const;
export type VariantFormat = (typeof VARIANT_FORMATS)[number];

/** The `tools/call` param the draft adds. */
export const REQUESTED_OUTPUTS_PARAM = 'requestedOutputs';
/** The `Tool` member the draft adds. */
export const OUTPUT_VARIANTS_FIELD = 'outputVariants';
/** The `CallToolResult` member the draft adds. */
export const OUTPUTS_FIELD = 'outputs';

// A core audience or a negotiated extension's identifier: the draft types it as a string.
const AUDIENCE = Type.String({ minLength: 1 });
const SCHEMA_OBJECT = Type.Object({ $schema: Type.Optional(Type.String()) }, { additionalProperties: true });

/** `ToolResultOutputSelector`: one entry of `params.requestedOutputs`. */
export const OutputSelectorSchema = Type.Object(
  { audience: AUDIENCE, format: Type.Union([Type.Literal('content'), Type.Literal('structured')]) },
  { additionalProperties: true },
);
export type OutputSelector = Static<typeof OutputSelectorSchema>;

/** `params.requestedOutputs`: the outputs a client selects for one call. */
export const RequestedOutputsSchema = Type.Array(OutputSelectorSchema, {});

/** `ToolResultVariant`: one entry of `Tool.outputVariants`. */
export const OutputVariantSchema = Type.Union([
  Type.Object({ audience: AUDIENCE, format: Type.Literal('content') }, { additionalProperties: true }),
  Type.Object(
    { audience: AUDIENCE, format: Type.Literal('structured'), schema: Type.Optional(SCHEMA_OBJECT) },
    { additionalProperties: true },
  ),
]);
export type OutputVariant = Static<typeof OutputVariantSchema>;

// A content block as far as routing goes: its type; the block itself is MCP's.
const CONTENT_BLOCK = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });

/** `ToolResultOutput`: one entry of `CallToolResult.outputs`. */
export const ToolResultOutputSchema = Type.Union([
  Type.Object(
    { audience: AUDIENCE, format: Type.Literal('content'), content: Type.Array(CONTENT_BLOCK) },
    { additionalProperties: true },
  ),
  Type.Object(
    { audience: AUDIENCE, format: Type.Literal('structured'), structuredContent: Type.Unknown() },
    { additionalProperties: true },
  ),
]);
export type ToolResultOutput =
  | { audience: string; format: 'content'; content: Record<string, unknown>[] }
  | { audience: string; format: 'structured'; structuredContent: unknown };

/** The part of a `tools/list` entry the draft adds (`outputVariants` is required there). */
export const VariantToolSchema = Type.Object(
  { name: Type.String(), outputVariants: Type.Array(OutputVariantSchema) },
  { additionalProperties: true },
);

/** The part of a `CallToolResult` the draft adds. */
export const VariantResultSchema = Type.Object(
  { outputs: Type.Array(ToolResultOutputSchema), isError: Type.Optional(Type.Boolean()) },
  { additionalProperties: true },
);

/** The part of `tools/call` params the draft adds (`requestedOutputs` is optional there). */
export const VariantCallParamsSchema = Type.Object(
  { name: Type.String(), requestedOutputs: Type.Optional(RequestedOutputsSchema) },
  { additionalProperties: true },
);

/** Every SEP-3279 shape, by name, for validators (the conformance kit, tests). */
export const RESULT_VARIANT_SCHEMAS = {
  OutputSelector: OutputSelectorSchema,
  OutputVariant: OutputVariantSchema,
  ToolResultOutput: ToolResultOutputSchema,
  Tool: VariantToolSchema,
  CallToolResult: VariantResultSchema,
  CallToolParams: VariantCallParamsSchema,
} as const;
