import type { Readable } from 'node:stream';
import {
  ConfigurationError,
  ExtensionError,
  type MethodHandler,
  type RequestContext,
  type ServerExtension,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import {
  importFromReference,
  resolveImportPolicy,
  type ImportPolicy,
  type ResolvedImportPolicy,
  type SinkFactory,
} from './importer.js';
import { importsNothing, isMimeType, parseImportRequest, parseUploadRequest, type Parsed } from './logic.js';
import type { CreateReferenceOptions, LocalReference, ReferenceOrigin, ReferenceSource } from './origin.js';
import {
  DATA_REFERENCES_ID,
  DATA_REFERENCES_PACKAGE,
  DATA_REFERENCES_WIRE_VERSION,
  DataReferencesClientSettingsSchema,
  type DataReference,
  type DataReferencesServerSettings,
  type ImportFromRefRequest,
  type ImportFromRefResponse,
} from './schema.js';

export { createReferenceOrigin } from './origin.js';
export type {
  CreateReferenceOptions,
  LocalReference,
  ReferenceOrigin,
  ReferenceOriginOptions,
  ReferenceSource,
  SpoolWriter,
  UploadOptions,
} from './origin.js';
export { fileSink, importFromReference, resolveImportPolicy, DEFAULT_MAX_IMPORT_BYTES } from './importer.js';
export type { ImportPolicy, ImportSink, ImportTarget, ResolvedImportPolicy, SinkFactory } from './importer.js';
export { registerDataReferenceTools, DATA_REFERENCE_TOOL_NAMES } from './tools.js';

export interface DataReferencesImportOptions extends ImportPolicy {
  /** Where imported bytes go. Default: into the `origin`, so each import becomes this server's own reference. */
  readonly sink?: SinkFactory | undefined;
}

export interface DataReferencesServerOptions {
  /** Mints and serves this server's references (and takes uploads when the origin enables them). */
  readonly origin?: ReferenceOrigin | undefined;
  /** Serves `<id>/import`: the policy for fetching other servers' references. Default: no import. */
  readonly import?: DataReferencesImportOptions | undefined;
}

/** What a tool handler can do with references during a call: {@link referencesOf}. */
export interface CallReferences {
  /** This server's origin, when it has one. */
  readonly origin: ReferenceOrigin | undefined;
  /** Whether the client negotiated the extension (it then reads `result._meta`; others get only the `resource_link`). */
  readonly negotiated: boolean;
  /** Creates a reference owned by the caller. */
  create(source: ReferenceSource, options: Omit<CreateReferenceOptions, 'principal'>): Promise<DataReference>;
  /** One of the caller's references served by this origin, or `undefined`. */
  lookup(refId: string): Promise<LocalReference | undefined>;
  /** Reads the bytes of one of the caller's references served by this origin. */
  open(refId: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Imports another server's reference under this server's import policy (never throws; `failed` with an error). */
  importReference(
    reference: DataReference | ImportFromRefRequest,
    options?: { sink?: SinkFactory | undefined },
  ): Promise<ImportFromRefResponse>;
}

// Symbol.for, so duplicate copies of this package agree on the slot.
const CALL = Symbol.for('io.github.mcp-ext/data-references/call');

interface Slot {
  readonly references: CallReferences;
}

/**
 * The handler's data-reference helper for the current call (also read by
 * `@ext/multimodal`, whose stage runs earlier). Throws a
 * `ConfigurationError` when `dataReferencesServer()` is not composed.
 *
 * @example
 * ```ts
 * server.registerTool('export_table', { inputSchema }, async ({ table }, ctx) => {
 *   const refs = referencesOf(ctx);
 *   const reference = await refs.create({ path: await exportToFile(table) }, { mimeType: 'text/csv', name: `${table}.csv` });
 *   return referenceResult(reference, { text: `Exported ${table}.` });
 * });
 * ```
 */
export function referencesOf(ctx: Pick<RequestContext, 'locals'>): CallReferences {
  const references = referencesFor(ctx);
  if (references === undefined) {
    throw new ConfigurationError(
      'MISSING_EXTENSION',
      'referencesOf: compose dataReferencesServer() into this server first',
    );
  }
  return references;
}

/** {@link referencesOf}, or `undefined` when `dataReferencesServer()` is not composed (for extensions that only use it when present). */
export function referencesFor(ctx: Pick<RequestContext, 'locals'>): CallReferences | undefined {
  return (ctx.locals.get(CALL) as Slot | undefined)?.references;
}

function invalidInput(failure: Exclude<Parsed<unknown>, { ok: true }>, suggestion: string): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', failure.message, {
    userActionable: false,
    suggestion,
    details: { field: failure.field, pointer: failure.pointer },
  });
}

/** A sink that keeps each import as a reference of `origin`, owned by the importing caller. */
export function originSink(origin: ReferenceOrigin): SinkFactory {
  return async ({ request, principal }) => {
    const writer = await origin.spool({
      mimeType:
        request.mime_type !== undefined && isMimeType(request.mime_type)
          ? request.mime_type
          : 'application/octet-stream',
      principal,
      name: request.ref_id,
    });
    return {
      writable: writer.writable,
      async commit(verified) {
        const reference = await writer.commit(verified);
        return { importedResourceId: reference.ref_id, reference };
      },
      abort: () => writer.abort(),
    };
  };
}

function stripUnnegotiated(result: ToolResult): ToolResult {
  if (result._meta?.[DATA_REFERENCES_ID] === undefined) return result;
  const { [DATA_REFERENCES_ID]: _dropped, ...rest } = result._meta;
  const { _meta: _old, ...withoutMeta } = result;
  return Object.keys(rest).length === 0 ? withoutMeta : { ...withoutMeta, _meta: rest };
}

/**
 * The server half of data references: advertises what this server does
 * with references, gives tool handlers {@link referencesOf} to create,
 * read and import them, serves `<id>/import` (with an import policy) and
 * `<id>/upload` (with an origin that takes uploads), and sends
 * `result._meta[<id>]` only to clients that negotiated the extension (the
 * others keep the `resource_link`). The bytes themselves travel over the
 * origin's HTTP endpoint, not over MCP.
 */
export function dataReferencesServer(options: DataReferencesServerOptions = {}): ServerExtension {
  const where = 'dataReferencesServer';
  const origin = options.origin;
  if (origin !== undefined && (typeof origin !== 'object' || typeof origin.handle !== 'function')) {
    throw new ConfigurationError('INVALID_OPTION', `${where}: origin must come from createReferenceOrigin()`);
  }
  if (origin === undefined && options.import === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: give an origin (to produce references), an import policy (to consume them), or both`,
    );
  }
  const policy: ResolvedImportPolicy | undefined =
    options.import === undefined ? undefined : resolveImportPolicy(options.import, `${where}: import`);
  const importSink = options.import?.sink ?? (origin === undefined ? undefined : originSink(origin));
  if (policy !== undefined && importSink === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: import needs a sink (import.sink, e.g. fileSink(directory)) or an origin to keep imports in`,
    );
  }
  if (options.import?.sink !== undefined && typeof options.import.sink !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${where}: import.sink must be a function (target) => ImportSink`);
  }

  const requireOrigin = (what: string): ReferenceOrigin => {
    if (origin === undefined)
      throw new ConfigurationError(
        'MISSING_ORIGIN',
        `referencesOf(ctx).${what}: this server has no origin; pass dataReferencesServer({ origin })`,
      );
    return origin;
  };

  const runImport = async (
    request: ImportFromRefRequest,
    ctx: RequestContext,
    sink: SinkFactory | undefined,
  ): Promise<ImportFromRefResponse> => {
    // The reference comes from the caller, so a server that imports nothing refuses it as input, not as a setup fault (DREF-12a).
    if (policy === undefined) return { status: 'failed', error: importsNothing(request).toStructured() };
    const target = sink ?? importSink;
    if (target === undefined) throw new ConfigurationError('MISSING_SINK', 'importReference: give a sink');
    return importFromReference(request, policy, target, {
      principal: ctx.principal,
      ctx,
      signal: ctx.signal,
      logger: ctx.logger,
    });
  };

  const callReferences = (ctx: RequestContext): CallReferences => ({
    origin,
    negotiated: ctx.negotiated(DATA_REFERENCES_PACKAGE) !== undefined,
    create: (source, create) =>
      requireOrigin('create').createReference(source, { ...create, principal: ctx.principal }),
    lookup: (refId) => requireOrigin('lookup').lookup(refId, ctx.principal),
    async open(refId, range) {
      const local = await requireOrigin('open').lookup(refId, ctx.principal);
      if (local === undefined) {
        throw new ExtensionError(
          'invalid_input',
          'REFERENCE_NOT_FOUND',
          'No such reference is held here for this caller',
          { details: { ref_id: refId } },
        );
      }
      return requireOrigin('open').open(refId, range);
    },
    importReference: (reference, importOptions) => runImport({ ...reference }, ctx, importOptions?.sink),
  });

  const middleware: ToolMiddleware = async (_call, ctx, next) => {
    const result = await next();
    return ctx.negotiated(DATA_REFERENCES_PACKAGE) === undefined ? stripUnnegotiated(result) : result;
  };

  const methods: Record<string, MethodHandler> = {};
  if (policy !== undefined) {
    methods.import = async (params, ctx) => {
      const parsed = parseImportRequest(params);
      if (!parsed.ok)
        throw invalidInput(
          parsed,
          'Send the DataReference you received (ref_id, origin_server, access_url, checksum, ...), plus target_format if needed.',
        );
      const response: ImportFromRefResponse = await runImport(parsed.value, ctx, undefined);
      return response;
    };
  }
  if (origin?.uploads !== undefined) {
    methods.upload = async (params, ctx) => {
      const parsed = parseUploadRequest(params);
      if (!parsed.ok) throw invalidInput(parsed, 'Send { mime_type, size_bytes? }.');
      const ticket = await origin.createUploadTicket({
        mimeType: parsed.value.mime_type,
        sizeBytes: parsed.value.size_bytes,
        principal: ctx.principal,
      });
      return { ...ticket };
    };
  }

  const settings: Omit<DataReferencesServerSettings, 'version'> = {};
  if (origin !== undefined) settings.origin_server = origin.serverName;
  if (policy !== undefined) settings.import = { max_size_bytes: policy.maxBytes };
  if (origin?.uploads !== undefined)
    settings.upload = { max_size_bytes: origin.uploads.maxBytes, ttl_seconds: origin.uploads.ttlSeconds };

  return {
    side: 'server',
    keepsCallerState: true,
    name: DATA_REFERENCES_PACKAGE,
    ids: [DATA_REFERENCES_ID],
    settings: { version: DATA_REFERENCES_WIRE_VERSION, ...settings },
    peerSettings: DataReferencesClientSettingsSchema,
    stage: 'data-references',
    middleware,
    methods,
    beginCall(_call, ctx) {
      // Set before the pipeline, so the multimodal stage (which runs earlier) can resolve uploaded references too.
      ctx.locals.set(CALL, { references: callReferences(ctx) } satisfies Slot);
    },
  };
}
