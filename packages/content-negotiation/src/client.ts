/** The client half of `@ext/content-negotiation`: declaring feature tags, overriding them per call, reading the echo. */
import { isRecord, lazyValidator } from '@ext/core/kit';
import { type ClientExtension } from '@ext/core';
import { CAPABILITY_FEATURES, featureValue, parseFeatures, serializeFeatures, type FeatureTag } from './grammar.js';
import { fail, optionRecord } from './option-checks.js';
import {
  AppliedFeaturesSchema,
  CONTENT_NEGOTIATION_DRAFT_ID,
  CONTENT_NEGOTIATION_ID,
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  ContentNegotiationServerSettingsSchema,
} from './schema.js';
import { type PresentationFormat, type PresentationVerbosity } from './call-presentation.js';

/** The MCP client capabilities mirrored as tags (`sampling`, `elicitation`, `roots`, `tasks`). */
export type MirroredCapabilities = Readonly<Partial<Record<(typeof CAPABILITY_FEATURES)[number], unknown>>>;

export interface ContentNegotiationClientOptions {
  /** Feature tags to declare, e.g. `['agent', 'format=json', 'verbosity=compact']`. Default: none. */
  readonly features?: readonly string[] | undefined;
  /**
   * The capabilities the MCP client declares (the object given to the SDK's
   * `Client`). Each of `sampling`, `elicitation`, `roots`, `tasks` that is
   * present is declared as the tag of the same name, so tags never
   * disagree with capabilities. Default: none mirrored.
   */
  readonly capabilities?: MirroredCapabilities | undefined;
}

const OPTION_NAMES = new Set(['features', 'capabilities']);

/**
 * Checks a feature list the application wrote itself: unlike a server,
 * which drops what it cannot read, the client refuses it, so a typo is
 * found at startup rather than silently ignored.
 */
function strictFeatures(input: unknown, option: string): FeatureTag[] {
  if (!Array.isArray(input)) fail(`option "${option}" must be an array of feature tags`);
  const parsed = parseFeatures(input);
  const [first] = parsed.warnings;
  if (first !== undefined) fail(`option "${option}": ${JSON.stringify(first.tag)}: ${first.reason}`);
  return [...parsed.tags];
}

/** The tags that mirror the capabilities present in `capabilities`, in registry order. */
export function capabilityFeatures(capabilities: MirroredCapabilities | undefined): string[] {
  if (capabilities === undefined) return [];
  return CAPABILITY_FEATURES.filter((name) => capabilities[name] !== undefined);
}

function validateOptions(options: unknown): { features: FeatureTag[] } {
  const record = optionRecord(options, 'contentNegotiationClient', OPTION_NAMES);
  if (record === undefined) return { features: [] };
  const declared = record.features === undefined ? [] : strictFeatures(record.features, 'features');
  const capabilities = record.capabilities;
  if (capabilities !== undefined && !isRecord(capabilities)) {
    fail('option "capabilities" must be the client capabilities object');
  }
  const mirrored = capabilityFeatures(capabilities);
  for (const name of mirrored) {
    if (declared.some((tag) => tag.name === name && tag.op === 'absent')) {
      fail(`option "features" negates "${name}", which option "capabilities" declares`);
    }
  }
  const missing = mirrored.filter((name) => !declared.some((tag) => tag.name === name));
  return { features: strictFeatures([...serializeFeatures(declared), ...missing], 'features') };
}

/**
 * The client half: declares the client's feature tags in
 * `capabilities.extensions["io.github.mcp-ext/content-negotiation"]`.
 * Override them for one call with {@link overrideFeatures}; read what the
 * server applied with {@link getAppliedFeatures}.
 */
export function contentNegotiationClient(options?: ContentNegotiationClientOptions): ClientExtension {
  const { features } = validateOptions(options);
  return {
    side: 'client',
    name: CONTENT_NEGOTIATION_PACKAGE_NAME,
    ids: [CONTENT_NEGOTIATION_ID],
    settings: { version: CONTENT_NEGOTIATION_WIRE_VERSION, features: serializeFeatures(features) },
    peerSettings: ContentNegotiationServerSettingsSchema,
    prepareCall(call, negotiated) {
      // Per-call data of an extension the server does not speak stays off the wire.
      if (negotiated === undefined) Reflect.deleteProperty(call.meta, CONTENT_NEGOTIATION_ID);
    },
  };
}

/**
 * `params._meta` that overrides the declared features for one call:
 * `client.callTool('get_ticket', args, { meta: overrideFeatures(['format=markdown']) })`.
 * Each dimension it names replaces the declared one (`agent` and `human`
 * are one dimension). Throws a `ConfigurationError` on a malformed tag.
 */
export function overrideFeatures(features: readonly string[]): Record<string, { features: string[] }> {
  return { [CONTENT_NEGOTIATION_ID]: { features: serializeFeatures(strictFeatures(features, 'features')) } };
}

/** What a result says the server applied to it. */
export interface AppliedPresentation {
  /** The canonical tags of the echo. */
  readonly features: readonly string[];
  readonly format: PresentationFormat | undefined;
  readonly verbosity: PresentationVerbosity | undefined;
}

const appliedValidator = lazyValidator(AppliedFeaturesSchema);

/**
 * The features the server applied to `result` (its `_meta` echo, under this
 * project's identifier or the draft one), or `undefined` when the result
 * carries none or an invalid one: then it has the server's default shape.
 */
export function getAppliedFeatures(
  result: { readonly _meta?: Readonly<Record<string, unknown>> | undefined } | undefined,
): AppliedPresentation | undefined {
  const meta = result?._meta;
  if (meta === undefined) return undefined;
  for (const id of [CONTENT_NEGOTIATION_ID, CONTENT_NEGOTIATION_DRAFT_ID]) {
    const echo = meta[id];
    if (echo === undefined || !appliedValidator().Check(echo)) continue;
    const tags = parseFeatures(echo.features).tags;
    return {
      features: serializeFeatures(tags),
      format: featureValue(tags, 'format') as PresentationFormat | undefined,
      verbosity: featureValue(tags, 'verbosity') as PresentationVerbosity | undefined,
    };
  }
  return undefined;
}
