/**
 * What a tool handler cites: the sources of the current call, kept on
 * `ctx.locals` while the provenance stage collects them, checked as they arrive.
 */
import { canonicalJson, ConfigurationError, defineLocal, lazyValidator, type CallContext } from '@ext/core';
import { ProvenanceSchema, type Provenance } from './schema.js';

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

/** The sources collected for one call, without duplicates. */
export interface Sources {
  readonly sources: Provenance[];
  readonly seen: Set<string>;
}

const SOURCES = defineLocal<Sources>('provenance/sources');

const provenanceValidator = lazyValidator(ProvenanceSchema);

/** Starts collecting the sources of a call; what its handler cites lands in the returned list. */
export function collectSources(ctx: Pick<CallContext, 'locals'>): Sources {
  const slot: Sources = { sources: [], seen: new Set() };
  SOURCES.set(ctx, slot);
  return slot;
}

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
  const validator = provenanceValidator();
  if (!validator.Check(copy)) {
    const issue = [...validator.Errors(copy)][0];
    throw new ConfigurationError(
      'INVALID_PROVENANCE',
      `cite: provenance${issue?.instancePath ?? ''} ${issue?.message ?? 'is not a Provenance object'} (seed schema Provenance)`,
    );
  }
  return copy;
}

function record(slot: Sources | undefined, records: readonly Citation[]): void {
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
  record(SOURCES.get(ctx), records);
}

/** The current call's provenance, for handlers that want to know whether it is collected, or what was cited. */
export function provenanceOf(ctx: Pick<CallContext, 'locals'>): CallProvenance {
  const slot = SOURCES.get(ctx);
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
