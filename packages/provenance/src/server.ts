/**
 * The server half of `@ext/provenance`: the stage that collects what a
 * handler cites and puts it, with a digest, on the result.
 */
import { canonicalHash } from '@ext/core/kit';
import { ConfigurationError, type ServerExtension, type ToolMiddleware, type ToolResult } from '@ext/core';
import { collectSources, type Sources } from './citations.js';
import {
  DEFAULT_MAX_SOURCES,
  PROVENANCE_ID,
  PROVENANCE_PACKAGE,
  PROVENANCE_WIRE_VERSION,
  type Provenance,
  type ProvenanceResultMeta,
  type ProvenanceServerSettings,
} from './schema.js';

export { cite, provenanceOf } from './citations.js';
export type { CallProvenance, Citation, CitationLocation } from './citations.js';

export interface ProvenanceServerOptions {
  /**
   * Add `sha256`, the hex SHA-256 of the RFC 8785 canonical JSON of each
   * cited result's `structuredContent`, so a client can check that what it
   * cites is what it got (PROV-5). Default `true`.
   */
  readonly digest?: boolean | undefined;
  /** Most sources one result carries; further ones are counted in `sources_omitted` (PROV-10). Default 100. */
  readonly maxSources?: number | undefined;
}

function withMeta(result: ToolResult, meta: ProvenanceResultMeta | undefined): ToolResult {
  const { [PROVENANCE_ID]: _dropped, ...others } = result._meta ?? {};
  const next: Record<string, unknown> = meta === undefined ? others : { ...others, [PROVENANCE_ID]: meta };
  const copy: ToolResult = { ...result };
  if (Object.keys(next).length === 0) delete copy._meta;
  else copy._meta = next;
  return copy;
}

/** The entry of a result whose handler cited `slot`'s sources. */
function entryOf(slot: Sources, result: ToolResult, digest: boolean, maxSources: number): ProvenanceResultMeta {
  const kept = slot.sources.slice(0, maxSources);
  const meta: ProvenanceResultMeta = { provenance: kept.length === 1 ? (kept[0] as Provenance) : kept };
  if (digest && result.structuredContent !== undefined) meta.sha256 = canonicalHash(result.structuredContent);
  if (slot.sources.length > kept.length) meta.sources_omitted = slot.sources.length - kept.length;
  return meta;
}

/**
 * The server half of `@ext/provenance`: handlers cite their sources with
 * {@link cite}; each successful result then carries
 * `_meta["io.github.mcp-ext/provenance"] = { provenance, sha256? }` for
 * clients that negotiated the extension.
 *
 * @example
 * ```ts
 * server.registerTool('get_revenue', { inputSchema }, async ({ quarter }, ctx) => {
 *   const row = await ledger.read(quarter);
 *   cite(ctx, { source: 'postgresql:analytics.revenue', retrievedAt: new Date(), confidence: 'exact' });
 *   return { content: [{ type: 'text', text: row.total }], structuredContent: row };
 * });
 * ```
 */
export function provenanceServer(options: ProvenanceServerOptions = {}): ServerExtension {
  const digest: unknown = options.digest ?? true;
  if (typeof digest !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', 'provenanceServer: "digest" must be a boolean');
  const maxSources = options.maxSources ?? DEFAULT_MAX_SOURCES;
  // By hand: the message quotes the option name, as it always has (positiveIntegerOption's does not).
  if (!Number.isSafeInteger(maxSources) || maxSources < 1)
    throw new ConfigurationError('INVALID_OPTION', 'provenanceServer: "maxSources" must be a positive integer');
  const settings: ProvenanceServerSettings = { version: PROVENANCE_WIRE_VERSION, digest, max_sources: maxSources };

  const middleware: ToolMiddleware = async (_call, ctx, next) => {
    const negotiated = ctx.negotiated(PROVENANCE_ID);
    // Only this extension writes its entry (PROV-6): a handler's own is dropped.
    if (negotiated === undefined) return withMeta(await next(), undefined);
    const slot = collectSources(ctx);
    const result = await next();
    const copy = withMeta(result, undefined);
    if (slot.sources.length === 0 || result.isError === true) return copy;
    return { ...copy, _meta: { ...(copy._meta ?? {}), [negotiated.id]: entryOf(slot, result, digest, maxSources) } };
  };

  return {
    side: 'server',
    name: PROVENANCE_PACKAGE,
    ids: [PROVENANCE_ID],
    settings,
    stage: 'provenance',
    middleware,
  };
}
