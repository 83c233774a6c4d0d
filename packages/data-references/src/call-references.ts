/** What a tool handler can do with references during a call (`referencesOf(ctx)`), kept on the call's `ctx.locals`. */
import type { Readable } from 'node:stream';
import { ConfigurationError, ExtensionError, type RequestContext } from '@ext/core';
import { defineLocal } from '@ext/core/kit';
import { importsNothing } from './import-failures.js';
import { importFromReference } from './importer.js';
import type { ServerConfig } from './options.js';
import type { CreateReferenceOptions, LocalReference, ReferenceOrigin, ReferenceSource } from './origin-types.js';
import {
  DATA_REFERENCES_ID,
  type DataReference,
  type ImportFromRefRequest,
  type ImportFromRefResponse,
} from './schema.js';
import type { SinkFactory } from './sinks.js';

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

// The slot holds `{ references }`, as every earlier copy of this package set it.
const CALL = defineLocal<{ readonly references: CallReferences }>('data-references/call');

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
  return CALL.get(ctx)?.references;
}

/** Puts the call's helper on `ctx.locals`. */
export function bindCallReferences(config: ServerConfig, ctx: RequestContext): void {
  CALL.set(ctx, { references: callReferences(config, ctx) });
}

function requireOrigin(config: ServerConfig, what: string): ReferenceOrigin {
  if (config.origin === undefined)
    throw new ConfigurationError(
      'MISSING_ORIGIN',
      `referencesOf(ctx).${what}: this server has no origin; pass dataReferencesServer({ origin })`,
    );
  return config.origin;
}

/** Imports `request` for the caller under the server's policy, into `sink` or the server's own. */
export async function runImport(
  config: ServerConfig,
  request: ImportFromRefRequest,
  ctx: RequestContext,
  sink: SinkFactory | undefined,
): Promise<ImportFromRefResponse> {
  // The reference comes from the caller, so a server that imports nothing refuses it as input, not as a setup fault (DREF-12a).
  if (config.policy === undefined) {
    const canUpload = config.origin?.uploads !== undefined && ctx.negotiated(DATA_REFERENCES_ID) !== undefined;
    return { status: 'failed', error: importsNothing(request, canUpload).toStructured() };
  }
  const target = sink ?? config.importSink;
  if (target === undefined) throw new ConfigurationError('MISSING_SINK', 'importReference: give a sink');
  return importFromReference(request, config.policy, target, {
    principal: ctx.principal,
    ctx,
    signal: ctx.signal,
    logger: ctx.logger,
  });
}

function callReferences(config: ServerConfig, ctx: RequestContext): CallReferences {
  return {
    origin: config.origin,
    negotiated: ctx.negotiated(DATA_REFERENCES_ID) !== undefined,
    create: (source, create) =>
      requireOrigin(config, 'create').createReference(source, { ...create, principal: ctx.principal }),
    lookup: (refId) => requireOrigin(config, 'lookup').lookup(refId, ctx.principal),
    async open(refId, range) {
      const local = await requireOrigin(config, 'open').lookup(refId, ctx.principal);
      if (local === undefined) {
        throw new ExtensionError(
          'invalid_input',
          'REFERENCE_NOT_FOUND',
          'No such reference is held here for this caller',
          { details: { ref_id: refId } },
        );
      }
      return requireOrigin(config, 'open').open(refId, range);
    },
    importReference: (reference, importOptions) => runImport(config, { ...reference }, ctx, importOptions?.sink),
  };
}
