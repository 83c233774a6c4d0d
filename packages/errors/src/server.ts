/** The server half of `@ext/errors`: the middleware that turns every failure into a structured error. */
import {
  ExtensionError,
  WireError,
  type CallContext,
  type ServerExtension,
  type StructuredError,
  type ToolCall,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { newCorrelationId } from '@ext/core/kit';
import { resolveErrorsIdentifiers, type ErrorsIdentifier } from './identifiers.js';
import { traceableError } from './internal-errors.js';
import { mapError, normalizeStructured, type MapErrorOptions } from './map.js';
import { checkFunctionOptions, invalidOption, optionRecord } from './option-checks.js';
import { plainErrorText, renderErrorText } from './render.js';
import { ERRORS_ID, ERRORS_IDS, ERRORS_PACKAGE_NAME, ERRORS_WIRE_VERSION, ErrorsSettingsSchema } from './schema.js';
import { httpsUrl } from './sanitize.js';
import { TOOL_FAILURE_KEY, toToolFailure, type ToolFailure } from './tool-failure.js';
import { getCallPresentation, type CallPresentation } from '@ext/content-negotiation';

/** What the `onError` hook receives for each failed tool call. */
export interface ErrorReport {
  /** What was thrown, untouched: log it server-side, never send it. */
  readonly error: unknown;
  /** What the client receives (in `_meta` when negotiated, as text in every case). */
  readonly structured: StructuredError;
  /**
   * For an internal error (`INTERNAL_ERROR`), the id it is known by: in
   * `structured.details.correlation_id` and in the line the server logged
   * (ERR-29). With the `toolFailure` option, every error has one: the
   * `correlationId` the client received in the SEP-3313 key (ERR-33), so
   * this hook can log it. Otherwise `undefined` for every other error.
   */
  readonly correlationId?: string | undefined;
  readonly call: ToolCall;
  readonly ctx: CallContext;
}

export interface ErrorsServerOptions {
  /**
   * Send the redacted message of foreign errors (plain `Error`s) instead of
   * a generic one. Default `false`.
   */
  readonly exposeMessages?: boolean | undefined;
  /** https base URL; the code is appended to make `documentation_url` for errors that carry none. */
  readonly documentationBaseUrl?: string | undefined;
  /**
   * Called with the original error of every failed call, for reporting of
   * your own (an error tracker). Internal errors are already logged once
   * through the server's logger, with their correlation id (ERR-30).
   */
  readonly onError?: ((report: ErrorReport) => void | Promise<void>) | undefined;
  /**
   * Maps a domain error before the built-in rules (e.g. a database's unique
   * violation to `invalid_input`). Return `undefined` to fall through. The
   * returned object is sanitized like any other.
   */
  readonly map?: ((error: unknown) => StructuredError | ExtensionError | undefined) | undefined;
  /**
   * Generations of the wire contract to serve, e.g. `['v1', 'v2']` to offer
   * the experimental `errors-v2` identifier beside v1. Each client gets the
   * newest one it advertises too. Default `['v1']`.
   */
  readonly identifiers?: readonly ErrorsIdentifier[] | undefined;
  /**
   * Also write the draft official classification (SEP-3313,
   * `_meta["io.modelcontextprotocol/toolFailure"]`) on every failure this
   * middleware answers, for every client: the draft has no negotiation
   * (SPEC.md section 7). Default `false`, so results stay as they were.
   */
  readonly toolFailure?: boolean | undefined;
}

const OPTION_NAMES = new Set([
  'exposeMessages',
  'documentationBaseUrl',
  'onError',
  'map',
  'identifiers',
  'toolFailure',
]);

function validateOptions(options: unknown): ErrorsServerOptions {
  const record = optionRecord(options, 'errorsServer', OPTION_NAMES);
  for (const name of ['exposeMessages', 'toolFailure']) {
    if (record[name] !== undefined && typeof record[name] !== 'boolean') {
      throw invalidOption(`option "${name}" must be a boolean`);
    }
  }
  if (record.documentationBaseUrl !== undefined && httpsUrl(record.documentationBaseUrl) === undefined) {
    throw invalidOption('option "documentationBaseUrl" must be an https URL without credentials');
  }
  checkFunctionOptions(record, ['onError', 'map']);
  return record;
}

/** The text a person or a model reads: the message, then the suggestion and the wait, if any. */
export function errorText(error: StructuredError): string {
  return plainErrorText(error);
}

/**
 * The `CallToolResult` of a failed call: `isError`, a readable text block,
 * and `_meta[id]` = the structured error when `withMeta` (the client
 * negotiated the extension). Other extensions that return rather than throw
 * their failures build their results with this. With a negotiated
 * `presentation` (core's `getCallPresentation(ctx)`), the text follows its
 * format and verbosity and the result carries its `resultMeta` (ERR-24).
 * With `toolFailure`, the result also carries it under the SEP-3313 key
 * (ERR-31).
 */
export function errorResult(
  error: StructuredError,
  withMeta: boolean,
  id: string = ERRORS_ID,
  presentation?: CallPresentation,
  toolFailure?: ToolFailure,
): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text: renderErrorText(error, presentation) }], isError: true };
  const meta: Record<string, unknown> = { ...(presentation?.resultMeta ?? {}) };
  if (withMeta) meta[id] = error;
  if (toolFailure !== undefined) meta[TOOL_FAILURE_KEY] = toolFailure;
  if (Object.keys(meta).length > 0) result._meta = meta;
  return result;
}

function withoutOwnMeta(result: ToolResult): ToolResult {
  const meta = result._meta;
  if (meta === undefined || !ERRORS_IDS.some((id) => id in meta)) return result;
  const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => !ERRORS_IDS.includes(key)));
  const copy: ToolResult = { ...result };
  if (Object.keys(rest).length > 0) copy._meta = rest;
  else delete copy._meta;
  return copy;
}

/**
 * The server half: the outermost tool-call middleware, which turns anything
 * thrown below it into a structured error result. `WireError`s pass
 * through, as they are JSON-RPC errors by intent.
 */
export function errorsServer(options?: ErrorsServerOptions): ServerExtension {
  const resolved = validateOptions(options);
  const ids = resolveErrorsIdentifiers(resolved.identifiers, 'errorsServer');
  const mapOptions: MapErrorOptions = {
    exposeMessages: resolved.exposeMessages ?? false,
    documentationBaseUrl: resolved.documentationBaseUrl,
  };

  const toStructured = (error: unknown, ctx: CallContext): StructuredError => {
    if (resolved.map) {
      try {
        const custom = resolved.map(error);
        if (ExtensionError.isInstance(custom)) return mapError(custom, mapOptions);
        if (custom !== undefined) return normalizeStructured(custom, mapOptions);
      } catch (mapFailure) {
        ctx.logger.warn(`${ERRORS_PACKAGE_NAME}: the "map" option threw; using the built-in mapping`, {
          tool: ctx.tool.name,
          error: String(mapFailure),
        });
      }
    }
    return mapError(error, mapOptions);
  };

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const negotiated = ctx.negotiated(ERRORS_ID);
    let result: ToolResult;
    try {
      result = await next();
    } catch (error) {
      if (WireError.isInstance(error)) throw error;
      const traced = traceableError(error, toStructured(error, ctx), ctx);
      const { structured } = traced;
      // One id per failure: an internal error's logged id, or a new one for the draft key (ERR-33).
      const correlationId =
        resolved.toolFailure === true ? (traced.correlationId ?? newCorrelationId()) : traced.correlationId;
      if (resolved.onError) {
        try {
          await resolved.onError({ error, structured, correlationId, call, ctx });
        } catch (hookFailure) {
          ctx.logger.warn(`${ERRORS_PACKAGE_NAME}: the "onError" hook threw`, {
            tool: ctx.tool.name,
            error: String(hookFailure),
          });
        }
      }
      const toolFailure =
        correlationId !== undefined && resolved.toolFailure === true
          ? toToolFailure(structured, correlationId, Date.now())
          : undefined;
      return errorResult(structured, negotiated !== undefined, negotiated?.id, getCallPresentation(ctx), toolFailure);
    }
    // Nothing of this extension reaches a client that did not advertise it.
    return negotiated === undefined ? withoutOwnMeta(result) : result;
  };

  return {
    side: 'server',
    name: ERRORS_PACKAGE_NAME,
    ids,
    settings: { version: ERRORS_WIRE_VERSION },
    peerSettings: ErrorsSettingsSchema,
    stage: 'errors',
    middleware,
  };
}

export { renderErrorText } from './render.js';
