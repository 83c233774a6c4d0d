import { canonicalHash, ConfigurationError, type CallContext, type ServerExtension, type ToolMiddleware, type ToolResult } from '@ext/core';
import { Compile } from 'typebox/compile';
import {
  PROVENANCE_ID,
  PROVENANCE_PACKAGE,
  PROVENANCE_WIRE_VERSION,
  ProvenanceSchema,
  type Provenance,
  type ProvenanceResultMeta,
  type ProvenanceServerSettings,
} from './schema.js';

export interface ProvenanceServerOptions {
  /**
   * Add `sha256`, the hex SHA-256 of the RFC 8785 canonical JSON of each
   * cited result's `structuredContent`, so a client can check that what it
   * cites is what it got (PROV-5). Default `true`.
   */
  readonly digest?: boolean | undefined;
}

// Symbol.for, so duplicate copies of this package agree on the slot.
const SOURCES = Symbol.for('io.github.mcp-ext/provenance/sources');

let provenanceValidator: ReturnType<typeof Compile<typeof ProvenanceSchema>> | undefined;

function validated(record: Provenance): Provenance {
  provenanceValidator ??= Compile(ProvenanceSchema);
  if (!provenanceValidator.Check(record)) {
    const issue = [...provenanceValidator.Errors(record)][0];
    throw new ConfigurationError(
      'INVALID_PROVENANCE',
      `cite: provenance${issue?.instancePath ?? ''} ${issue?.message ?? 'is not a Provenance object'} (seed schema Provenance)`,
    );
  }
  return { ...record, ...(record.location === undefined ? {} : { location: { ...record.location } }) };
}

/**
 * Cites a source of the current call's result, as the handler reads it:
 * `cite(ctx, { source: 'invoice_v2.pdf', location: { page: 3 }, retrieved_at })`.
 * Several citations make a list. A no-op when the server does not compose
 * `@ext/provenance` or the client did not negotiate it, so handlers can
 * always call it. Throws a `ConfigurationError` naming the field when the
 * record is not a valid `Provenance` (a programming error, never the
 * client's).
 */
export function cite(ctx: Pick<CallContext, 'locals'>, ...records: Provenance[]): void {
  const checked = records.map(validated);
  const sources = ctx.locals.get(SOURCES) as Provenance[] | undefined;
  sources?.push(...checked);
}

function withMeta(result: ToolResult, meta: ProvenanceResultMeta | undefined): ToolResult {
  const { [PROVENANCE_ID]: _dropped, ...others } = result._meta ?? {};
  const next: Record<string, unknown> = meta === undefined ? others : { ...others, [PROVENANCE_ID]: meta };
  const copy: ToolResult = { ...result };
  if (Object.keys(next).length === 0) delete copy._meta;
  else copy._meta = next;
  return copy;
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
 *   cite(ctx, { source: 'postgresql:analytics.revenue', retrieved_at: new Date().toISOString(), confidence: 'exact' });
 *   return { content: [{ type: 'text', text: row.total }], structuredContent: row };
 * });
 * ```
 */
export function provenanceServer(options: ProvenanceServerOptions = {}): ServerExtension {
  const digest = options.digest ?? true;
  if (typeof digest !== 'boolean') throw new ConfigurationError('INVALID_OPTION', 'provenanceServer: "digest" must be a boolean');
  const settings: ProvenanceServerSettings = { version: PROVENANCE_WIRE_VERSION, digest };

  const middleware: ToolMiddleware = async (_call, ctx, next) => {
    const negotiated = ctx.negotiated(PROVENANCE_PACKAGE) !== undefined;
    const sources: Provenance[] = [];
    if (negotiated) ctx.locals.set(SOURCES, sources);
    const result = await next();
    // Only this extension writes its entry (PROV-6): a handler's own is dropped.
    if (!negotiated || sources.length === 0 || result.isError === true) return withMeta(result, undefined);
    const meta: ProvenanceResultMeta = { provenance: sources.length === 1 ? (sources[0] as Provenance) : sources };
    if (digest && result.structuredContent !== undefined) meta.sha256 = canonicalHash(result.structuredContent);
    return withMeta(result, meta);
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
