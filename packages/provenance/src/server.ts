import {
  canonicalHash,
  canonicalJson,
  ConfigurationError,
  type CallContext,
  type ServerExtension,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { Compile } from 'typebox/compile';
import {
  DEFAULT_MAX_SOURCES,
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
  /** Most sources one result carries; further ones are counted in `sources_omitted` (PROV-10). Default 100. */
  readonly maxSources?: number | undefined;
}

/** A source as a handler cites it: a seed `Provenance`, where `retrieved_at` may also be a `Date`. */
export type Citation = Omit<Provenance, 'retrieved_at'> & { retrieved_at?: string | Date | undefined };

/** The sources of the current call, for the handler. */
export interface CallProvenance {
  /**
   * Whether the sources will reach the client (the server composes
   * `@ext/provenance` and the client negotiated it): a handler may skip
   * costly bookkeeping when not.
   */
  readonly active: boolean;
  /** Cites sources, as {@link cite} does. */
  add(...records: Citation[]): void;
  /** The sources cited so far, in order, without duplicates. */
  readonly sources: readonly Provenance[];
}

interface Slot {
  readonly sources: Provenance[];
  readonly seen: Set<string>;
}

// Symbol.for, so duplicate copies of this package agree on the slot.
const SOURCES = Symbol.for('io.github.mcp-ext/provenance/sources');

let provenanceValidator: ReturnType<typeof Compile<typeof ProvenanceSchema>> | undefined;

function normalized(record: Citation): Provenance {
  const at = record.retrieved_at;
  if (at instanceof Date && Number.isNaN(at.getTime()))
    throw new ConfigurationError('INVALID_PROVENANCE', 'cite: provenance/retrieved_at is an invalid Date');
  // Optional fields left undefined by the author are absent on the wire.
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(record as Record<string, unknown>).filter(([, value]) => value !== undefined),
  );
  if (at instanceof Date) copy.retrieved_at = at.toISOString();
  if (record.location !== undefined) copy.location = { ...record.location };
  provenanceValidator ??= Compile(ProvenanceSchema);
  if (!provenanceValidator.Check(copy)) {
    const issue = [...provenanceValidator.Errors(copy)][0];
    throw new ConfigurationError(
      'INVALID_PROVENANCE',
      `cite: provenance${issue?.instancePath ?? ''} ${issue?.message ?? 'is not a Provenance object'} (seed schema Provenance)`,
    );
  }
  return copy;
}

function slotOf(ctx: Pick<CallContext, 'locals'>): Slot | undefined {
  return ctx.locals.get(SOURCES) as Slot | undefined;
}

function record(slot: Slot | undefined, records: readonly Citation[]): void {
  // Validated even when nothing is collected: a bad citation is a bug whether or not this client sees it (PROV-2).
  const checked = records.map(normalized);
  if (slot === undefined) return;
  for (const source of checked) {
    const key = canonicalJson(source);
    if (slot.seen.has(key)) continue;
    slot.seen.add(key);
    slot.sources.push(source);
  }
}

/**
 * Cites sources of the current call's result, as the handler reads them:
 * `cite(ctx, { source: 'invoice_v2.pdf', location: { page: 3 }, retrieved_at: new Date() })`.
 * Several citations make a list; citing the same source twice keeps one.
 * A no-op when the server does not compose `@ext/provenance` or the client
 * did not negotiate it, so handlers can always call it. Throws a
 * `ConfigurationError` naming the field when a record is not a valid
 * `Provenance` (a programming error, never the client's).
 */
export function cite(ctx: Pick<CallContext, 'locals'>, ...records: Citation[]): void {
  record(slotOf(ctx), records);
}

/** The current call's provenance, for handlers that want to know whether it is collected, or what was cited. */
export function provenanceOf(ctx: Pick<CallContext, 'locals'>): CallProvenance {
  const slot = slotOf(ctx);
  return {
    active: slot !== undefined,
    add: (...records) => {
      record(slot, records);
    },
    get sources() {
      return slot === undefined ? [] : [...slot.sources];
    },
  };
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
 *   cite(ctx, { source: 'postgresql:analytics.revenue', retrieved_at: new Date(), confidence: 'exact' });
 *   return { content: [{ type: 'text', text: row.total }], structuredContent: row };
 * });
 * ```
 */
export function provenanceServer(options: ProvenanceServerOptions = {}): ServerExtension {
  const digest: unknown = options.digest ?? true;
  if (typeof digest !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', 'provenanceServer: "digest" must be a boolean');
  const maxSources = options.maxSources ?? DEFAULT_MAX_SOURCES;
  if (!Number.isSafeInteger(maxSources) || maxSources < 1)
    throw new ConfigurationError('INVALID_OPTION', 'provenanceServer: "maxSources" must be a positive integer');
  const settings: ProvenanceServerSettings = { version: PROVENANCE_WIRE_VERSION, digest, max_sources: maxSources };

  const middleware: ToolMiddleware = async (_call, ctx, next) => {
    const negotiated = ctx.negotiated(PROVENANCE_PACKAGE);
    const slot: Slot = { sources: [], seen: new Set() };
    if (negotiated !== undefined) ctx.locals.set(SOURCES, slot);
    const result = await next();
    // Only this extension writes its entry (PROV-6): a handler's own is dropped.
    if (negotiated === undefined || slot.sources.length === 0 || result.isError === true)
      return withMeta(result, undefined);
    const kept = slot.sources.slice(0, maxSources);
    const meta: ProvenanceResultMeta = { provenance: kept.length === 1 ? (kept[0] as Provenance) : kept };
    if (digest && result.structuredContent !== undefined) meta.sha256 = canonicalHash(result.structuredContent);
    if (slot.sources.length > kept.length) meta.sources_omitted = slot.sources.length - kept.length;
    const copy = withMeta(result, undefined);
    return { ...copy, _meta: { ...(copy._meta ?? {}), [negotiated.id]: meta } };
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
