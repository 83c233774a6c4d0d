/**
 * `@ext/content-negotiation`: the extension's identifiers, its wire schemas
 * (through `CONTENT_NEGOTIATION_SCHEMAS`) and types, the feature-tag parser,
 * the presentation enumerations and the call's presentation slot (which other
 * extensions read), and the SEP-3279 result-variant shapes.
 */
export {
  CONTENT_NEGOTIATION_ID,
  CONTENT_NEGOTIATION_DRAFT_ID,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  CONTENT_NEGOTIATION_SCHEMAS,
  contentNegotiationJsonSchema,
} from './schema.js';
export type {
  ContentNegotiationClientSettings,
  ContentNegotiationServerSettings,
  FeatureOverride,
  AppliedFeatures,
} from './schema.js';
export {
  BOOLEAN_FEATURES,
  VALUED_FEATURES,
  CAPABILITY_FEATURES,
  parseFeatureTag,
  parseFeatures,
  formatFeatureTag,
  serializeFeatures,
  hasFeature,
  featureValue,
  excludedValues,
} from './grammar.js';
export type { FeatureOperator, FeatureTag, FeatureWarning, ParsedFeatures, TagCheck } from './grammar.js';
export {
  CORE_AUDIENCES,
  VARIANT_FORMATS,
  REQUESTED_OUTPUTS_PARAM,
  OUTPUT_VARIANTS_FIELD,
  OUTPUTS_FIELD,
  RESULT_VARIANT_SCHEMAS,
} from './variants-schema.js';
export type {
  CoreAudience,
  VariantFormat,
  OutputSelector,
  OutputVariant,
  ToolResultOutput,
} from './variants-schema.js';
export { declaredVariants, checkRequestedOutputs } from './variants.js';
export type { SelectionCheck } from './variants.js';
export {
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  getCallPresentation,
  setCallPresentation,
} from './call-presentation.js';
export type { CallPresentation, PresentationFormat, PresentationVerbosity } from './call-presentation.js';
