/**
 * Negotiation (SEP-2133): each composed half against the extensions the
 * peer declared, the outcome remembered per declaration.
 */
import { jsonEqual } from '../kit/canonical.js';
import type { ClientExtension, NegotiationTable } from '../contract/client-extension.js';
import type { ServerExtension } from '../contract/extension.js';
import { settingsSpec } from '../pipeline/halves.js';
import { pickCommonIdentifier } from './identifiers.js';
import { isRecord } from '../kit/records.js';
import type { Logger } from '../telemetry/logger.js';
import { directoryOf, registerTable } from './negotiation-lookup.js';
import { readSettings } from './settings.js';
import type { NegotiatedExtension } from '../contract/types.js';

/** Negotiates one half against the peer's advertised extensions. Never throws. */
function negotiateHalf(
  half: ServerExtension | ClientExtension,
  peer: Readonly<Record<string, unknown>> | undefined,
  logger: Logger,
): NegotiatedExtension | undefined {
  if (peer === undefined) return undefined;
  const id = pickCommonIdentifier(half.ids, Object.keys(peer));
  if (id === undefined) return undefined;
  const settings = readSettings(id, peer[id], settingsSpec(half), logger);
  return settings === undefined ? undefined : { id, settings };
}

/** How many distinct peer declarations a composition remembers the outcome of. */
const NEGOTIATION_CACHE_SIZE = 16;

/**
 * Negotiation is a pure function of the peer's declaration, and it runs on
 * every request (the 2026-07-28 era has no connection to remember it on), so
 * outcomes are remembered: by object identity (a legacy-era peer's
 * capabilities object lives as long as its connection) and by content (a
 * modern-era peer repeats the same declaration, as a new object, in every
 * request), most recently used first. Tables are shared between requests
 * and must not be mutated.
 */
export function negotiator(
  halves: readonly (ServerExtension | ClientExtension)[],
  logger: Logger,
): (peerExtensions: unknown) => NegotiationTable {
  const byObject = new WeakMap<object, NegotiationTable>();
  // Each entry keeps its own copy of the declaration, so a caller mutating its object later cannot change what matches.
  const recent: { readonly declaration: unknown; readonly table: NegotiationTable }[] = [];
  const directory = directoryOf(halves);
  const compute = (peer: Readonly<Record<string, unknown>> | undefined): NegotiationTable => {
    const table = new Map<string, NegotiatedExtension>();
    for (const half of halves) {
      const outcome = negotiateHalf(half, peer, logger);
      if (outcome) table.set(half.name, outcome);
    }
    return registerTable(table, directory);
  };
  const remembered = (peer: Readonly<Record<string, unknown>>): NegotiationTable => {
    for (let index = 0; index < recent.length; index++) {
      const entry = recent[index];
      if (entry !== undefined && jsonEqual(entry.declaration, peer)) {
        if (index > 0) {
          recent.splice(index, 1);
          recent.unshift(entry);
        }
        return entry.table;
      }
    }
    const table = compute(peer);
    let declaration: unknown;
    try {
      declaration = JSON.parse(JSON.stringify(peer)) as unknown;
    } catch {
      // Not JSON (a cycle, a BigInt): negotiate without remembering.
      return table;
    }
    recent.unshift({ declaration, table });
    if (recent.length > NEGOTIATION_CACHE_SIZE) recent.pop();
    return table;
  };
  return (peerExtensions) => {
    if (!isRecord(peerExtensions)) return compute(undefined);
    const seen = byObject.get(peerExtensions);
    if (seen !== undefined) return seen;
    const table = remembered(peerExtensions);
    byObject.set(peerExtensions, table);
    return table;
  };
}

/**
 * The table for the peer's current capabilities, negotiated again only when
 * `read` returns another object: a peer's capabilities are fixed per
 * connection, so invalid settings are reported once, not on every call.
 */
export function perCapabilities<C>(
  read: () => C,
  negotiate: (capabilities: C) => NegotiationTable,
): () => NegotiationTable {
  let last: { readonly capabilities: C; readonly table: NegotiationTable } | undefined;
  return () => {
    const capabilities = read();
    if (last === undefined || last.capabilities !== capabilities)
      last = { capabilities, table: negotiate(capabilities) };
    return last.table;
  };
}
