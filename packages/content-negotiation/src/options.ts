/** The options of `contentNegotiationServer`, and the checks they pass at startup. */
import { fail, optionRecord } from './option-checks.js';
import {
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  type PresentationFormat,
  type PresentationVerbosity,
} from './call-presentation.js';

export interface ContentNegotiationServerOptions {
  /** Format for clients that express no preference, and for clients without the extension. Default `'json'`. */
  readonly defaultFormat?: PresentationFormat | undefined;
  /** Verbosity for clients that express no preference. Default `'standard'`. */
  readonly defaultVerbosity?: PresentationVerbosity | undefined;
  /**
   * Also accept the SEP draft identifier `io.modelcontextprotocol/content-negotiation`
   * from clients, and answer under it. Default `false`.
   */
  readonly acceptDraftIdentifier?: boolean | undefined;
  /**
   * Also answer SEP-3279 (draft) result variants: list `outputVariants` on
   * every tool and answer a call's `requestedOutputs` with `outputs`, rendered
   * from the same data (SPEC.md CN-19..CN-24). Default `false`.
   */
  readonly resultVariants?: boolean | undefined;
}

const OPTION_NAMES = new Set(['defaultFormat', 'defaultVerbosity', 'acceptDraftIdentifier', 'resultVariants']);

/** `options` checked; a `ConfigurationError` (`INVALID_OPTION`) names the first bad one. */
export function validateOptions(options: unknown): ContentNegotiationServerOptions {
  const record = optionRecord(options, 'contentNegotiationServer', OPTION_NAMES);
  if (record === undefined) return {};
  if (
    record.defaultFormat !== undefined &&
    !(PRESENTATION_FORMATS as readonly unknown[]).includes(record.defaultFormat)
  ) {
    fail(`option "defaultFormat" must be one of ${PRESENTATION_FORMATS.join(', ')}`);
  }
  if (
    record.defaultVerbosity !== undefined &&
    !(PRESENTATION_VERBOSITIES as readonly unknown[]).includes(record.defaultVerbosity)
  ) {
    fail(`option "defaultVerbosity" must be one of ${PRESENTATION_VERBOSITIES.join(', ')}`);
  }
  if (record.acceptDraftIdentifier !== undefined && typeof record.acceptDraftIdentifier !== 'boolean') {
    fail('option "acceptDraftIdentifier" must be a boolean');
  }
  if (record.resultVariants !== undefined && typeof record.resultVariants !== 'boolean') {
    fail('option "resultVariants" must be a boolean');
  }
  return record;
}
