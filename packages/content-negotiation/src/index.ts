/**
 * `@ext/content-negotiation`: the extension's identifiers, its wire schemas
 * (through `CONTENT_NEGOTIATION_SCHEMAS`) and types, the feature-tag parser,
 * and core's presentation enumerations.
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
export { PRESENTATION_FORMATS, PRESENTATION_VERBOSITIES } from '@ext/core';
export type { PresentationFormat, PresentationVerbosity } from '@ext/core';
