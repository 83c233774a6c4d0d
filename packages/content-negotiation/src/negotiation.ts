/**
 * From what a client advertised, and sent with one request, to that
 * request's presentation and its echo; dropped tags are logged, never refused.
 */
import { parseSettings, pickCommonIdentifier } from '@ext/core/kit';
import { type Logger } from '@ext/core';
import { parseFeatures, type FeatureWarning, type ParsedFeatures } from './grammar.js';
import {
  defaultPresentation,
  resolvePresentation,
  type Presentation,
  type PresentationDefaults,
} from './presentation.js';
import {
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  ContentNegotiationClientSettingsSchema,
  type ContentNegotiationClientSettings,
} from './schema.js';

/** The echo `result._meta[id]` for a result rendered in `presentation`'s format and verbosity. */
export function echoFor(id: string, features: readonly string[]): Record<string, unknown> {
  return { [id]: { features: [...features] } };
}

function logWarnings(logger: Logger, id: string, source: string, warnings: readonly FeatureWarning[]): void {
  for (const warning of warnings) {
    logger.warn(
      `${CONTENT_NEGOTIATION_PACKAGE_NAME}: ignored feature tag ${JSON.stringify(warning.tag)} (${source}): ${warning.reason}`,
      {
        id,
        source,
        tag: warning.tag,
        index: warning.index,
      },
    );
  }
}

/** The extension as negotiated for one request: the identifier the client used and its settings. */
export interface Negotiated {
  readonly id: string;
  readonly settings: ContentNegotiationClientSettings;
}

/** What a request to one server half is presented in. */
export interface PresentationResolver {
  /** The presentation of a request, from the negotiation (`undefined`: not negotiated) and its `params._meta`. */
  resolve(negotiated: Negotiated | undefined, meta: unknown, logger: Logger): Presentation;
  /** The same from a client's raw `capabilities.extensions` (`undefined` when unknown), outside the tool pipeline. */
  presentationFor(request: {
    readonly peerExtensions: unknown;
    readonly meta?: unknown;
    readonly logger?: Logger | undefined;
  }): Presentation;
}

/** The resolver of one server half, which serves `ids` and answers with `defaults` when the client says nothing. */
export function presentationResolver(ids: readonly string[], defaults: PresentationDefaults): PresentationResolver {
  // Advertised features are parsed once per settings object: once per session on the legacy era.
  const parsedSettings = new WeakMap<object, ParsedFeatures>();
  const advertised = (id: string, settings: ContentNegotiationClientSettings, logger: Logger): ParsedFeatures => {
    let parsed = parsedSettings.get(settings);
    if (parsed === undefined) {
      parsed = parseFeatures(settings.features);
      parsedSettings.set(settings, parsed);
      logWarnings(logger, id, 'capabilities', parsed.warnings);
    }
    return parsed;
  };

  const resolve = (negotiated: Negotiated | undefined, meta: unknown, logger: Logger): Presentation => {
    if (negotiated === undefined) return defaultPresentation(defaults);
    const override =
      typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[negotiated.id] : undefined;
    const { presentation, warnings } = resolvePresentation(
      { id: negotiated.id, advertised: advertised(negotiated.id, negotiated.settings, logger), override },
      defaults,
    );
    logWarnings(logger, negotiated.id, 'params._meta', warnings);
    return {
      ...presentation,
      resultMeta: echoFor(negotiated.id, [`format=${presentation.format}`, `verbosity=${presentation.verbosity}`]),
    };
  };

  return {
    resolve,
    presentationFor({ peerExtensions, meta, logger }) {
      const log = logger ?? { warn: () => undefined };
      if (typeof peerExtensions !== 'object' || peerExtensions === null) return defaultPresentation(defaults);
      const peer = peerExtensions as Record<string, unknown>;
      const id = pickCommonIdentifier(ids, Object.keys(peer));
      if (id === undefined) return defaultPresentation(defaults);
      const settings = parseSettings<ContentNegotiationClientSettings>(peer[id], {
        schema: ContentNegotiationClientSettingsSchema,
        majors: [Number(CONTENT_NEGOTIATION_WIRE_VERSION.split('.')[0])],
      });
      if (!settings.ok) {
        log.warn(`extension ${id} not negotiated: ${settings.reason}`, { id, pointer: settings.pointer });
        return defaultPresentation(defaults);
      }
      return resolve({ id, settings: settings.settings }, meta, log);
    },
  };
}
