/**
 * What the server adapters of both SDK lines share: the composition an
 * extended server serves, the tool it records, the caller's auth info and
 * progress token as the core models them, and the refusal of a tool
 * registered past the pipeline.
 */
import { composeServer } from './compose.js';
import { ConfigurationError } from '../contract/errors.js';
import type { ComposedServer } from '../contract/extension.js';
import type { ServerAdapterOptions, ServerExtensionList, ToolConfig } from '../contract/host.js';
import type { AuthInfo, ConnectionChannel, StandardSchemaV1, ToolInfo } from '../contract/types.js';

/** The composition to serve: the one given, or one composed from the extensions given. */
export function composedFor(
  extensions: ServerExtensionList | ComposedServer,
  options: ServerAdapterOptions,
): ComposedServer {
  return 'runToolCall' in extensions
    ? extensions
    : composeServer(extensions, {
        logger: options.logger,
        allowReservedIds: options.allowReservedIds,
        telemetry: options.telemetry,
      });
}

// The composition each extended McpServer serves, for the HTTP handler's startup check.
const compositions = new WeakMap<object, ComposedServer>();

/** Records the composition `extendServer` attached to an McpServer. */
export function rememberComposition(server: object, composed: ComposedServer): void {
  compositions.set(server, composed);
}

/** The composition `extendServer` attached to this McpServer, if any. */
export function compositionOf(server: object): ComposedServer | undefined {
  return compositions.get(server);
}

/**
 * `make(key, ...)` once per key object: a server built per request (the
 * 2026-07-28 era) or per session hands the same composition and schema
 * objects in again and again. Consumers only read what is made.
 */
export function perObject<K extends object, V, A extends unknown[] = []>(
  make: (key: K, ...args: A) => V,
): (key: K, ...args: A) => V {
  const made = new WeakMap<K, V>();
  return (key, ...args) => {
    if (made.has(key)) return made.get(key) as V;
    const value = make(key, ...args);
    made.set(key, value);
    return value;
  };
}

/** The core's description of a tool registered with `config`, its schemas rendered by `jsonSchemaOf`. */
export function toolInfoOf(
  name: string,
  config: ToolConfig,
  jsonSchemaOf: (schema: StandardSchemaV1 | undefined) => Record<string, unknown> | undefined,
): ToolInfo {
  return {
    name,
    title: config.title,
    description: config.description,
    annotations: config.annotations,
    _meta: config._meta,
    inputJsonSchema: jsonSchemaOf(config.inputSchema),
    outputJsonSchema: jsonSchemaOf(config.outputSchema),
  };
}

/** The core's `AuthInfo` from an SDK's (an empty client id means none). */
export function coreAuthInfo(
  info: { readonly clientId: string; readonly scopes: string[]; readonly extra?: Record<string, unknown> } | undefined,
): AuthInfo | undefined {
  if (!info) return undefined;
  return { clientId: info.clientId === '' ? undefined : info.clientId, scopes: info.scopes, extra: info.extra };
}

/** A request's progress token, when the client sent one that is a string or a number. */
export function progressTokenOf(token: unknown): string | number | undefined {
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * A connection's channel for notifications tied to no request, whose signal
 * aborts when `transport` closes. The SDKs keep a transport `onclose` set
 * before `connect` and call it first, so chaining it here sees every close,
 * whoever closes. The signal is made only when someone reads it: the
 * 2026-07-28 era connects a server per request and nothing there reads it.
 */
export function closingChannel(
  transport: { onclose?: (() => void) | undefined },
  notify: ConnectionChannel['notify'],
): ConnectionChannel {
  let closed: AbortController | undefined;
  let isClosed = false;
  const previous = transport.onclose;
  transport.onclose = () => {
    isClosed = true;
    closed?.abort();
    previous?.();
  };
  return {
    get signal() {
      if (closed === undefined) {
        closed = new AbortController();
        if (isClosed) closed.abort();
      }
      return closed.signal;
    },
    notify,
  };
}

/** The error for a tool registered past the pipeline (core SPEC, CORE-27). */
export function rawRegistration(what: string): ConfigurationError {
  return new ConfigurationError(
    'RAW_TOOL_REGISTRATION',
    `${what} on an extended McpServer would serve a tool past every extension (no confirmation, no permissions): register tools on the server extendServer returned (extended.registerTool)`,
  );
}

// `tools/call` params the core already models; every other member is handed to extensions as sent.
const MODELLED_CALL_PARAMS = new Set(['name', 'arguments', '_meta', 'task']);

/** A `tools/call` request's params beyond those the core models (`ToolCall.params`), or `undefined` when none. */
export function extraCallParams(params: unknown): Record<string, unknown> | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const extra = Object.entries(params).filter(([key]) => !MODELLED_CALL_PARAMS.has(key));
  return extra.length > 0 ? Object.fromEntries(extra) : undefined;
}

/**
 * A `tools/list` result with each listed tool of the composition given the
 * top-level members its extensions add (`toolFields`); a member the entry
 * already has is kept as the SDK listed it.
 */
export function withToolFields(composed: ComposedServer, result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  const { tools } = result as { tools?: unknown };
  if (!Array.isArray(tools)) return result;
  const listed = tools.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return entry;
    const name = (entry as { name?: unknown }).name;
    const info = typeof name === 'string' ? composed.tools.get(name) : undefined;
    const fields = info === undefined ? undefined : composed.decorateTool(info).fields;
    if (fields === undefined || Object.keys(fields).length === 0) return entry;
    return { ...fields, ...(entry as Record<string, unknown>) };
  });
  return { ...result, tools: listed };
}
