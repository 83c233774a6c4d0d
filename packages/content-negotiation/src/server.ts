import {
  ConfigurationError,
  PRESENTATION_FORMATS,
  PRESENTATION_VERBOSITIES,
  parseSettings,
  pickCommonIdentifier,
  setCallPresentation,
  type CallContext,
  type Logger,
  type PresentationFormat,
  type PresentationVerbosity,
  type RequestContext,
  type ServerExtension,
  type ToolCall,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import {
  formatFeatureTag,
  parseFeatures,
  parseFeatureTag,
  type FeatureWarning,
  type ParsedFeatures,
} from './grammar.js';
import {
  DEFAULT_PRESENTATION,
  defaultPresentation,
  resolvePresentation,
  type Presentation,
  type PresentationDefaults,
} from './presentation.js';
import { renderResult, type RenderOptions } from './render.js';
import {
  CONTENT_NEGOTIATION_DRAFT_ID,
  CONTENT_NEGOTIATION_EXTENSION_ID,
  CONTENT_NEGOTIATION_PACKAGE_NAME,
  CONTENT_NEGOTIATION_WIRE_VERSION,
  ContentNegotiationClientSettingsSchema,
  MAX_FEATURES,
  type ContentNegotiationClientSettings,
} from './schema.js';

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
}

/** The server half, plus a way to resolve a presentation outside tool calls. */
export interface ContentNegotiationServerExtension extends ServerExtension {
  /**
   * The presentation for a request that does not go through the tool
   * pipeline (`resources/read`, `prompts/get`): from the client's
   * `capabilities.extensions` (`undefined` when unknown) and the request's
   * `params._meta`. Dropped tags are reported to `logger`.
   */
  presentationFor(request: {
    readonly peerExtensions: unknown;
    readonly meta?: unknown;
    readonly logger?: Logger | undefined;
  }): Presentation;
}

const OPTION_NAMES = new Set(['defaultFormat', 'defaultVerbosity', 'acceptDraftIdentifier']);

function validateOptions(options: unknown): ContentNegotiationServerOptions {
  const fail = (message: string): never => {
    throw new ConfigurationError('INVALID_OPTION', `${CONTENT_NEGOTIATION_PACKAGE_NAME}: ${message}`);
  };
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return fail('contentNegotiationServer(options) expects an object');
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!OPTION_NAMES.has(key)) fail(`unknown option "${key}"`);
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
  return record;
}

// Symbol.for, so duplicate copies of this package agree on the slots.
const PRESENTATION_SLOT = Symbol.for('io.github.mcp-ext/content-negotiation/presentation');
const APPLIED_SLOT = Symbol.for('io.github.mcp-ext/content-negotiation/applied');

/**
 * The presentation of the current tool call: what format and verbosity to
 * answer in, who the client is (`agent` / `human`), and every feature in
 * force. Without the extension (or for a client that did not negotiate it)
 * the server's defaults, so a handler never needs to branch on that.
 */
export function getPresentation(ctx: Pick<RequestContext, 'locals'>): Presentation {
  const value = ctx.locals.get(PRESENTATION_SLOT);
  return value === undefined ? defaultPresentation() : (value as Presentation);
}

function appliedList(ctx: Pick<RequestContext, 'locals'>): string[] {
  let list = ctx.locals.get(APPLIED_SLOT) as string[] | undefined;
  if (list === undefined) {
    list = [];
    ctx.locals.set(APPLIED_SLOT, list);
  }
  return list;
}

/**
 * Records features the handler applied beyond format and verbosity (e.g.
 * `sampling` when it added reasoning hints), so the echo names them. Tags
 * must be well-formed; at most {@link MAX_FEATURES} are echoed.
 */
export function markApplied(ctx: Pick<RequestContext, 'locals'>, ...tags: string[]): void {
  const list = appliedList(ctx);
  for (const raw of tags) {
    const check = parseFeatureTag(raw);
    if (!check.ok) throw new TypeError(`markApplied: "${raw}" is not a feature tag: ${check.reason}`);
    const canonical = formatFeatureTag(check.tag);
    if (!list.includes(canonical) && list.length < MAX_FEATURES) list.push(canonical);
  }
}

/** The features applied to the current call so far, canonical, in the order they were applied. */
export function appliedFeatures(ctx: Pick<RequestContext, 'locals'>): string[] {
  return [...((ctx.locals.get(APPLIED_SLOT) as string[] | undefined) ?? [])];
}

/**
 * Renders `data` as the current call's presentation asks (SPEC.md CN-10..CN-12)
 * and records `format=` and `verbosity=` as applied. One handler serves
 * every client:
 *
 * ```ts
 * server.registerTool('get_ticket', { inputSchema }, async ({ id }, ctx) =>
 *   render(ctx, { data: { ticket: await load(id) }, markdown: ({ ticket }) => `### ${ticket.id}: ${ticket.title}` }),
 * );
 * ```
 */
export function render<T extends Record<string, unknown>>(
  ctx: Pick<CallContext, 'locals' | 'tool'>,
  options: RenderOptions<T>,
): ToolResult {
  const presentation = getPresentation(ctx);
  const result = renderResult(presentation, options, ctx.tool.outputJsonSchema !== undefined);
  markApplied(ctx, `format=${presentation.format}`, `verbosity=${presentation.verbosity}`);
  return result;
}

/** The echo `result._meta[id]` for a result rendered in `presentation`'s format and verbosity. */
function echoFor(id: string, features: readonly string[]): Record<string, unknown> {
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

/**
 * The server half: resolves each tool call's presentation before the
 * pipeline runs (so even the errors stage renders in it), and echoes the
 * applied features in `result._meta[id]` under the identifier the client
 * used. It never refuses, skips or rewrites a call (CN-15).
 */
export function contentNegotiationServer(options?: ContentNegotiationServerOptions): ContentNegotiationServerExtension {
  const resolved = validateOptions(options);
  const defaults: PresentationDefaults = {
    format: resolved.defaultFormat ?? DEFAULT_PRESENTATION.format,
    verbosity: resolved.defaultVerbosity ?? DEFAULT_PRESENTATION.verbosity,
  };
  const draft = resolved.acceptDraftIdentifier === true;
  const ids: readonly string[] = draft
    ? [CONTENT_NEGOTIATION_EXTENSION_ID, CONTENT_NEGOTIATION_DRAFT_ID]
    : [CONTENT_NEGOTIATION_EXTENSION_ID];

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

  const resolve = (
    negotiated: { id: string; settings: ContentNegotiationClientSettings } | undefined,
    meta: unknown,
    logger: Logger,
  ): Presentation => {
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

  const prepare = (call: ToolCall, ctx: CallContext): Presentation => {
    const existing = ctx.locals.get(PRESENTATION_SLOT);
    if (existing !== undefined) return existing as Presentation;
    const negotiated = ctx.negotiated<ContentNegotiationClientSettings>(CONTENT_NEGOTIATION_PACKAGE_NAME);
    const presentation = resolve(negotiated, call.meta, ctx.logger);
    ctx.locals.set(PRESENTATION_SLOT, presentation);
    // Only a negotiated presentation is shared: other extensions keep their default shape for everyone else.
    if (presentation.negotiated) setCallPresentation(ctx, presentation);
    return presentation;
  };

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const presentation = prepare(call, ctx);
    const result = await next();
    const meta = result._meta;
    if (!presentation.negotiated || presentation.id === undefined) {
      // Nothing of this extension reaches a client that did not advertise it.
      if (meta === undefined || !ids.some((id) => id in meta)) return result;
      const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => !ids.includes(key)));
      const copy: ToolResult = { ...result };
      if (Object.keys(rest).length > 0) copy._meta = rest;
      else delete copy._meta;
      return copy;
    }
    return { ...result, _meta: { ...(meta ?? {}), ...echoFor(presentation.id, appliedFeatures(ctx)) } };
  };

  return {
    side: 'server',
    name: CONTENT_NEGOTIATION_PACKAGE_NAME,
    ids,
    reservedAliases: draft ? [CONTENT_NEGOTIATION_DRAFT_ID] : undefined,
    settings: { version: CONTENT_NEGOTIATION_WIRE_VERSION },
    peerSettings: ContentNegotiationClientSettingsSchema,
    stage: 'content-negotiation',
    beginCall: (call, ctx) => {
      prepare(call, ctx);
    },
    middleware,
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

export {
  renderResult,
  renderText,
  renderResource,
  renderPrompt,
  genericMarkdown,
  genericText,
  jsonText,
  FORMAT_MIME_TYPES,
} from './render.js';
export type { RenderOptions, Renderer, ResourceRenderOptions, PromptRenderOptions } from './render.js';
export { DEFAULT_PRESENTATION, defaultPresentation, choosePresentation } from './presentation.js';
export type { Presentation, PresentationDefaults, Audience } from './presentation.js';
