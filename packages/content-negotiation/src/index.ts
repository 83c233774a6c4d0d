export {
  CONTENT_NEGOTIATION_EXTENSION_ID,
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
  mergeFeatures,
} from './grammar.js';
export type { FeatureOperator, FeatureTag, FeatureWarning, ParsedFeatures, TagCheck } from './grammar.js';
export {
  DEFAULT_PRESENTATION,
  defaultPresentation,
  choosePresentation,
  resolvePresentation,
  readOverride,
} from './presentation.js';
export type { Presentation, PresentationDefaults, Audience, ResolveInput } from './presentation.js';
export { PRESENTATION_FORMATS, PRESENTATION_VERBOSITIES } from '@ext/core';
export type { PresentationFormat, PresentationVerbosity, CallPresentation } from '@ext/core';
