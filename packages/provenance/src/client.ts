/** The client half of `@ext/provenance`: the descriptor, a result's provenance with its digest checked, and citation lines. */
import { canonicalHash, lazyValidator } from '@ext/core/kit';
import { type ClientExtension, type ToolResult } from '@ext/core';
import {
  PROVENANCE_ID,
  PROVENANCE_PACKAGE,
  PROVENANCE_WIRE_VERSION,
  ProvenanceResultMetaSchema,
  type Provenance,
} from './schema.js';

/** The client half: advertises the extension so the server attaches citations. */
export function provenanceClient(): ClientExtension {
  return {
    side: 'client',
    name: PROVENANCE_PACKAGE,
    ids: [PROVENANCE_ID],
    settings: { version: PROVENANCE_WIRE_VERSION },
  };
}

/** What a result says about its sources. */
export interface ResultProvenance {
  /** Every cited source, in the order the handler cited them. */
  readonly sources: readonly Provenance[];
  /**
   * `verified` when the result's `structuredContent` hashes to the digest the
   * server sent, `mismatch` when it does not (the content changed on the way,
   * or the server is wrong), `absent` when no digest was sent.
   */
  readonly digest: 'verified' | 'mismatch' | 'absent';
  /** Further sources the server left out of the entry (PROV-10); 0 when none. */
  readonly omitted: number;
}

const metaValidator = lazyValidator(ProvenanceResultMetaSchema);

/**
 * The provenance of a result, or `undefined` when it carries none or an
 * entry that is not valid (never trusted half-way). Provenance is the
 * server's claim, a convenience for citation, not proof (PROV-8).
 */
export function getProvenance(result: ToolResult): ResultProvenance | undefined {
  const entry = result._meta?.[PROVENANCE_ID];
  if (!metaValidator().Check(entry)) return undefined;
  const sources = Array.isArray(entry.provenance) ? entry.provenance : [entry.provenance];
  const digest =
    entry.sha256 === undefined
      ? 'absent'
      : result.structuredContent !== undefined && canonicalHash(result.structuredContent) === entry.sha256
        ? 'verified'
        : 'mismatch';
  return { sources, digest, omitted: entry.sources_omitted ?? 0 };
}

function where(source: Provenance): string {
  const location = source.location;
  if (location === undefined) return '';
  const parts: string[] = [];
  if (location.page !== undefined) parts.push(`p.${String(location.page)}`);
  if (location.paragraph !== undefined) parts.push(`para.${String(location.paragraph)}`);
  if (location.line !== undefined) parts.push(`line ${String(location.line)}`);
  if (location.cell !== undefined) parts.push(`cell ${location.cell}`);
  if (location.json_path !== undefined) parts.push(location.json_path);
  if (location.url_fragment !== undefined) parts.push(`#${location.url_fragment}`);
  return parts.join(' ');
}

/**
 * One readable citation line: `"Q3 revenue $4.2M, invoice_v2.pdf p.3, retrieved 2026-03-10"`
 * (the claim first when given, then source, location, version, date, and
 * how the value was derived when it was not copied as is).
 */
export function citation(source: Provenance, claim?: string): string {
  const parts: string[] = [];
  if (claim !== undefined && claim !== '') parts.push(claim);
  const place = where(source);
  parts.push(place === '' ? source.source : `${source.source} ${place}`);
  if (source.version !== undefined) parts.push(`version ${source.version}`);
  if (source.retrieved_at !== undefined) parts.push(`retrieved ${source.retrieved_at.slice(0, 10)}`);
  if (source.confidence !== undefined && source.confidence !== 'exact') parts.push(source.confidence);
  if (source.transformation !== undefined) parts.push(source.transformation);
  return parts.join(', ');
}

/**
 * The citation lines of a result, one per source, or `[]` when it carries
 * no (valid) provenance. With `requireVerified`, a result whose digest does
 * not match its `structuredContent` gives no lines: what would be cited is
 * not what the server described.
 */
export function citations(
  result: ToolResult,
  claim?: string,
  options: { readonly requireVerified?: boolean } = {},
): string[] {
  const found = getProvenance(result);
  if (found === undefined) return [];
  if (options.requireVerified === true && found.digest !== 'verified') return [];
  return found.sources.map((source) => citation(source, claim));
}
