/** `RegistryIndex`: the in-memory index of MCP Registry entries that recommendations are drawn from. */
import { canonicalJson, isRecord } from '@ext/core/kit';
import { candidateOf, type Candidate } from './candidate.js';
import { parseRegistryEntry, type IndexedEntry, type RegistryServerList } from './registry-entry.js';
import { DISCOVERY_ID } from './schema.js';
import { isRecommendable, pickLatest, timeOf } from './versions.js';

/** Why an entry was not taken into the index. */
export interface SkippedEntry {
  /** Position in the list it came in. */
  readonly position: number;
  readonly name: string | undefined;
  /** JSON Pointer of the first violation, relative to the entry. */
  readonly pointer: string;
  readonly message: string;
}

export interface AddReport {
  /** Entries stored (new, or newer than the stored copy). */
  readonly stored: number;
  /** Entries already held as they are, or held in a copy updated later. */
  readonly unchanged: number;
  readonly skipped: readonly SkippedEntry[];
}

export interface RegistryIndexOptions {
  /**
   * Base URL of the registry that entries without a recorded origin come
   * from (e.g. `https://registry.modelcontextprotocol.io` for a snapshot of
   * the official registry), used to build each recommendation's
   * `registry_url`. Default: none (no `registry_url` for such entries).
   */
  readonly registryUrl?: string | undefined;
  /** Most server versions the index holds; further new ones are skipped. Default 100 000. */
  readonly maxEntries?: number | undefined;
}

/**
 * An in-memory index of MCP Registry entries, every version of every
 * server, from which the latest active version of each server is
 * recommended. Fill it with {@link RegistryIndex.add}, `loadRegistryFile` or
 * `syncRegistry`; it does no I/O itself.
 */
export class RegistryIndex {
  readonly registryUrl: string | undefined;
  readonly maxEntries: number;
  readonly #entries = new Map<string, Map<string, IndexedEntry>>();
  #count = 0;
  #candidates: readonly Candidate[] | undefined;

  constructor(options: RegistryIndexOptions = {}) {
    if (options.registryUrl !== undefined && !/^https?:\/\//.test(options.registryUrl)) {
      throw new TypeError('RegistryIndex: "registryUrl" must be an http(s) URL');
    }
    this.registryUrl = options.registryUrl;
    this.maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(this.maxEntries) || this.maxEntries < 1)
      throw new TypeError('RegistryIndex: "maxEntries" must be a positive integer');
  }

  /** Server versions held, every status included. */
  get entryCount(): number {
    return this.#count;
  }

  /**
   * Merges entries (list-response items or bare `server.json` documents).
   * An entry replaces the stored copy of the same name and version unless
   * the stored one was updated later (so pages arriving out of order never
   * roll an entry back) or is the same. Invalid entries are skipped and
   * reported, never thrown.
   */
  add(items: readonly unknown[], origin?: string): AddReport {
    const skipped: SkippedEntry[] = [];
    let stored = 0;
    let unchanged = 0;
    items.forEach((item, position) => {
      const parsed = parseRegistryEntry(item, origin, this.registryUrl);
      if (!parsed.ok) {
        const name =
          isRecord(item) && isRecord(item.server) && typeof item.server.name === 'string'
            ? item.server.name
            : undefined;
        skipped.push({ position, name, pointer: parsed.pointer, message: parsed.message });
        return;
      }
      const entry = parsed.entry;
      let versions = this.#entries.get(entry.name);
      const existing = versions?.get(entry.version);
      if (
        existing !== undefined &&
        (timeOf(existing.official.updatedAt) > timeOf(entry.official.updatedAt) ||
          canonicalJson(existing.raw) === canonicalJson(entry.raw))
      ) {
        unchanged += 1;
        return;
      }
      if (existing === undefined && this.#count >= this.maxEntries) {
        skipped.push({
          position,
          name: entry.name,
          pointer: '',
          message: `the index is full (${this.maxEntries} entries)`,
        });
        return;
      }
      if (versions === undefined) {
        versions = new Map();
        this.#entries.set(entry.name, versions);
      }
      if (existing === undefined) this.#count += 1;
      versions.set(entry.version, entry);
      stored += 1;
    });
    if (stored > 0) this.#candidates = undefined;
    return { stored, unchanged, skipped };
  }

  /** Every stored version of one server (any status). */
  versions(name: string): readonly IndexedEntry[] {
    return [...(this.#entries.get(name)?.values() ?? [])];
  }

  /** The version the index recommends for a server, or `undefined` (unknown, deleted, or deprecated). */
  latest(name: string): IndexedEntry | undefined {
    const latest = pickLatest(this.versions(name));
    return latest !== undefined && isRecommendable(latest) ? latest : undefined;
  }

  /** The recommendable servers: for each name the latest version, when it is active. */
  candidates(): readonly Candidate[] {
    if (this.#candidates === undefined) {
      const out: Candidate[] = [];
      for (const name of this.#entries.keys()) {
        const latest = this.latest(name);
        if (latest !== undefined) out.push(candidateOf(latest));
      }
      this.#candidates = out;
    }
    return this.#candidates;
  }

  /**
   * The latest `updatedAt` among the entries from one registry: what to
   * send as `updated_since` on the next incremental sync. `undefined` when
   * nothing from it carries a timestamp.
   */
  updatedUntil(origin: string): string | undefined {
    let best: string | undefined;
    for (const versions of this.#entries.values()) {
      for (const entry of versions.values()) {
        if (entry.origin !== origin || entry.official.updatedAt === undefined) continue;
        if (best === undefined || timeOf(entry.official.updatedAt) > timeOf(best)) best = entry.official.updatedAt;
      }
    }
    return best;
  }

  /**
   * Every stored version in the registry's list format, ready to save and
   * load again; each entry records the registry it came from under
   * `_meta["io.github.mcp-ext/discovery"].registry`.
   */
  toList(): RegistryServerList {
    const servers: Record<string, unknown>[] = [];
    for (const versions of this.#entries.values()) {
      for (const entry of versions.values()) {
        const raw: Record<string, unknown> = JSON.parse(JSON.stringify(entry.raw)) as Record<string, unknown>;
        if (entry.origin !== undefined) {
          const meta = isRecord(raw._meta) ? raw._meta : {};
          raw._meta = { ...meta, [DISCOVERY_ID]: { registry: entry.origin } };
        }
        servers.push(raw);
      }
    }
    return { servers, metadata: { count: servers.length } };
  }
}
