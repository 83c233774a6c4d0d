/**
 * What a tool handler cites: the sources of the current call, kept on
 * `ctx.locals` while the provenance stage collects them, checked as they arrive.
 */
import { canonicalJson, defineLocal, isRecord, lazyValidator, renamedKeys } from '@ext/core/kit';
import { ConfigurationError, type CallContext } from '@ext/core';
import { ProvenanceSchema, type Provenance } from './schema.js';

/** Where within the source the data was found; sent as the seed's `location`. */
export interface CitationLocation {
  readonly page?: number | undefined;
  readonly paragraph?: number | undefined;
  readonly line?: number | undefined;
  readonly cell?: string | undefined;
  /** Sent as `json_path`. */
  readonly jsonPath?: string | undefined;
  /** Sent as `url_fragment`. */
  readonly urlFragment?: string | undefined;
  /** @deprecated Use `jsonPath`; the snake_case spelling goes in the next major. */
  readonly json_path?: string | undefined;
  /** @deprecated Use `urlFragment`; the snake_case spelling goes in the next major. */
  readonly url_fragment?: string | undefined;
}

/** A source as a handler cites it; sent as a seed `Provenance`. */
export interface Citation {
  readonly source: string;
  readonly location?: CitationLocation | undefined;
  /** When the source was read: an RFC 3339 string or a `Date`. Sent as `retrieved_at`. */
  readonly retrievedAt?: string | Date | undefined;
  readonly version?: string | undefined;
  readonly confidence?: Provenance['confidence'];
  readonly transformation?: string | undefined;
  /** @deprecated Use `retrievedAt`; the snake_case spelling goes in the next major. */
  readonly retrieved_at?: string | Date | undefined;
}

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
  /** The sources cited so far, in order, without duplicates, as they are sent (seed `Provenance`, snake_case). */
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

const WHERE = '@ext/provenance cite';

/** The citation's own names for the seed's snake_case fields: how errors name a field the author wrote. */
const AUTHOR_NAMES: Readonly<Record<string, string>> = {
  retrieved_at: 'retrievedAt',
  json_path: 'jsonPath',
  url_fragment: 'urlFragment',
};

/** `value`'s fields that are set, renamed from the citation's spelling to the seed's. */
function onTheWire(value: Record<string, unknown>, renames: Readonly<Record<string, string>>): Record<string, unknown> {
  // Optional fields left undefined by the author are absent on the wire.
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([key, field]) => [renames[key] ?? key, field]),
  );
}

function normalized(cited: Citation): Provenance {
  const record = renamedKeys(WHERE, cited, { retrieved_at: 'retrievedAt' });
  const at = record.retrievedAt;
  if (at instanceof Date && Number.isNaN(at.getTime()))
    throw new ConfigurationError('INVALID_PROVENANCE', 'cite: provenance/retrievedAt is an invalid Date');
  const copy = onTheWire(record as unknown as Record<string, unknown>, { retrievedAt: 'retrieved_at' });
  if (at instanceof Date) copy.retrieved_at = at.toISOString();
  if (isRecord(record.location)) {
    const location = renamedKeys(WHERE, record.location, { json_path: 'jsonPath', url_fragment: 'urlFragment' });
    copy.location = onTheWire(location, { jsonPath: 'json_path', urlFragment: 'url_fragment' });
  }
  const validator = provenanceValidator();
  if (!validator.Check(copy)) {
    const issue = [...validator.Errors(copy)][0];
    const path = (issue?.instancePath ?? '').replace(/[a-z]+(?:_[a-z]+)+/g, (name) => AUTHOR_NAMES[name] ?? name);
    throw new ConfigurationError(
      'INVALID_PROVENANCE',
      `cite: provenance${path} ${issue?.message ?? 'is not a Provenance object'} (seed schema Provenance)`,
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
 * `cite(ctx, { source: 'invoice_v2.pdf', location: { page: 3 }, retrievedAt: new Date() })`.
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
