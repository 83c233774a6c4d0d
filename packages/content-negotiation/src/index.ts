/**
 * `@ext/content-negotiation`: the extension's identifiers and wire schemas,
 * the feature-tag parser, and the presentation types handlers read.
 */
export {
  CONTENT_NEGOTIATION_ID,
  CONTENT_NEGOTIATION_DRAFT_ID,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  MAX_FEATURES,
  MAX_FEATURE_LENGTH,
  SCHEMA_BASE,
  ContentNegotiationClientSettingsSchema,
  ContentNegotiationServerSettingsSchema,
  FeatureOverrideSchema,
  AppliedFeaturesSchema,
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
export type { Presentation, PresentationDefaults, Audience } from './presentation.js';
export { PRESENTATION_FORMATS, PRESENTATION_VERBOSITIES } from '@ext/core';
export type { PresentationFormat, PresentationVerbosity, CallPresentation } from '@ext/core';
