/**
 * From features to a presentation: which format and verbosity one call
 * gets. Pure functions; the server half only feeds them what arrived.
 */
import { lazyValidator } from '@ext/core/kit';
import {
  excludedValues,
  featureValue,
  hasFeature,
  mergeFeatures,
  parseFeatures,
  type FeatureTag,
  type FeatureWarning,
  type ParsedFeatures,
} from './grammar.js';
import { FeatureOverrideSchema } from './schema.js';
import {
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  type CallPresentation,
  type PresentationFormat,
  type PresentationVerbosity,
} from './call-presentation.js';

/** What a server answers with when the client says nothing about it. */
export interface PresentationDefaults {
  readonly format: PresentationFormat;
  readonly verbosity: PresentationVerbosity;
}

/** The built-in defaults: the shape MCP tools return anyway (structured JSON plus its text copy). */
export const DEFAULT_PRESENTATION: PresentationDefaults = { format: 'json', verbosity: 'standard' };

export type Audience = 'agent' | 'human';

/** The presentation of one call, as a handler reads it (`getPresentation(ctx)`). */
export interface Presentation extends CallPresentation {
  /** Whether the client negotiated the extension; when `false` the server's defaults apply and nothing is echoed. */
  readonly negotiated: boolean;
  /** The identifier the client used (this project's or the draft one); `undefined` when not negotiated. */
  readonly id: string | undefined;
  /** `agent` or `human` when the client declared one (never both: they cancel out). */
  readonly audience: Audience | undefined;
  /** The features in force for this call: the advertised ones, overridden per call. Empty when not negotiated. */
  readonly features: readonly FeatureTag[];
}

/** The presentation of a client that did not negotiate: the server's defaults, no features. */
export function defaultPresentation(defaults: PresentationDefaults = DEFAULT_PRESENTATION): Presentation {
  return {
    negotiated: false,
    id: undefined,
    format: defaults.format,
    verbosity: defaults.verbosity,
    audience: undefined,
    features: [],
  };
}

function firstAllowed<T extends string>(candidates: readonly T[], excluded: readonly string[]): T | undefined {
  return candidates.find((candidate) => !excluded.includes(candidate));
}

/**
 * Chooses format and verbosity (SPEC.md CN-8): an explicit `format=` /
 * `verbosity=` wins; otherwise `agent` means JSON and `human` markdown;
 * otherwise the server's default; values excluded with `!=` are skipped.
 */
export function choosePresentation(
  features: readonly FeatureTag[],
  defaults: PresentationDefaults = DEFAULT_PRESENTATION,
): { format: PresentationFormat; verbosity: PresentationVerbosity; audience: Audience | undefined } {
  const agent = hasFeature(features, 'agent') === true;
  const human = hasFeature(features, 'human') === true;
  const audience: Audience | undefined = agent ? 'agent' : human ? 'human' : undefined;

  const explicitFormat = featureValue(features, 'format') as PresentationFormat | undefined;
  const byAudience: PresentationFormat[] = audience === 'agent' ? ['json'] : audience === 'human' ? ['markdown'] : [];
  const format =
    explicitFormat ??
    firstAllowed([...byAudience, defaults.format, ...PRESENTATION_FORMATS], excludedValues(features, 'format')) ??
    defaults.format;

  const explicitVerbosity = featureValue(features, 'verbosity') as PresentationVerbosity | undefined;
  const verbosity =
    explicitVerbosity ??
    firstAllowed(
      [defaults.verbosity, 'standard', ...PRESENTATION_VERBOSITIES],
      excludedValues(features, 'verbosity'),
    ) ??
    defaults.verbosity;
  return { format, verbosity, audience };
}

const overrideValidator = lazyValidator(FeatureOverrideSchema);

/**
 * The per-call override in `params._meta[id]`: its features, or a warning
 * when the object is malformed (then it is ignored, never an error).
 */
export function readOverride(raw: unknown): {
  parsed: ParsedFeatures | undefined;
  warning: FeatureWarning | undefined;
} {
  if (raw === undefined) return { parsed: undefined, warning: undefined };
  if (!overrideValidator().Check(raw)) {
    return {
      parsed: undefined,
      warning: {
        index: -1,
        tag: 'params._meta',
        reason: 'the per-call override must be an object with a "features" array; ignored',
      },
    };
  }
  return { parsed: parseFeatures(raw.features), warning: undefined };
}

export interface ResolveInput {
  /** The negotiated identifier; `undefined` when the client did not negotiate. */
  readonly id: string | undefined;
  /** The advertised features, already parsed. */
  readonly advertised: ParsedFeatures | undefined;
  /** `params._meta[id]` of this request, as it arrived. */
  readonly override: unknown;
}

/**
 * The presentation of one call, and every warning about what was dropped.
 * A client that did not negotiate gets the defaults; its override (if any)
 * is ignored, as nothing of an extension is used unless both sides
 * advertised it.
 */
export function resolvePresentation(
  input: ResolveInput,
  defaults: PresentationDefaults = DEFAULT_PRESENTATION,
): { presentation: Presentation; warnings: FeatureWarning[] } {
  if (input.id === undefined) return { presentation: defaultPresentation(defaults), warnings: [] };
  const { parsed, warning } = readOverride(input.override);
  const warnings = [...(parsed?.warnings ?? []), ...(warning ? [warning] : [])];
  const features = mergeFeatures(input.advertised?.tags ?? [], parsed?.tags ?? []);
  const chosen = choosePresentation(features, defaults);
  return { presentation: { negotiated: true, id: input.id, ...chosen, features }, warnings };
}
