import { canonicalJson } from '@ext/core';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { DISCOVERY_ID, type Package, type Remote } from './schema.js';

/**
 * The MCP Registry's entry format, as its `GET /v0.1/servers` list answers
 * it: `{ server: <server.json>, _meta: { "io.modelcontextprotocol.registry/official": { status, publishedAt, updatedAt, isLatest } } }`.
 * Read leniently (unknown fields kept, optional ones optional) but bounded,
 * because an index is input from outside.
 */
export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';

/** Registry server names: reverse-DNS namespace, one slash, server part. */
export const REGISTRY_NAME_PATTERN = '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$';

export const REGISTRY_STATUSES = ['active', 'deprecated', 'deleted'] as const;
export type RegistryStatus = (typeof REGISTRY_STATUSES)[number];

const KeyValueInputSchema = Type.Object({
  name: Type.String({ maxLength: 256 }),
  isRequired: Type.Optional(Type.Boolean()),
  isSecret: Type.Optional(Type.Boolean()),
});

const TransportSchema = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 64 }),
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  headers: Type.Optional(Type.Array(KeyValueInputSchema, { maxItems: 64 })),
});

const ArgumentSchema = Type.Object({ isSecret: Type.Optional(Type.Boolean()) });

const RegistryPackageSchema = Type.Object({
  registryType: Type.String({ minLength: 1, maxLength: 64 }),
  identifier: Type.String({ minLength: 1, maxLength: 1024 }),
  version: Type.Optional(Type.String({ maxLength: 255 })),
  transport: Type.Optional(TransportSchema),
  environmentVariables: Type.Optional(Type.Array(KeyValueInputSchema, { maxItems: 256 })),
  packageArguments: Type.Optional(Type.Array(ArgumentSchema, { maxItems: 256 })),
  runtimeArguments: Type.Optional(Type.Array(ArgumentSchema, { maxItems: 256 })),
});

/** A `server.json` document (the registry's `ServerDetail`), the fields this package reads. */
export const RegistryServerDetailSchema = Type.Object({
  name: Type.String({ minLength: 3, maxLength: 200, pattern: REGISTRY_NAME_PATTERN }),
  description: Type.String({ maxLength: 2000 }),
  version: Type.String({ minLength: 1, maxLength: 255 }),
  title: Type.Optional(Type.String({ maxLength: 200 })),
  websiteUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  repository: Type.Optional(
    Type.Object({ url: Type.String({ maxLength: 2048 }), source: Type.Optional(Type.String()) }),
  ),
  packages: Type.Optional(Type.Array(RegistryPackageSchema, { maxItems: 64 })),
  remotes: Type.Optional(Type.Array(TransportSchema, { maxItems: 64 })),
});
export type RegistryServerDetail = Static<typeof RegistryServerDetailSchema>;

const OfficialMetaSchema = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 64 })),
  publishedAt: Type.Optional(Type.String({ format: 'date-time' })),
  updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  isLatest: Type.Optional(Type.Boolean()),
});

/** One entry of the registry's list response (`ServerResponse`). */
export const RegistryServerResponseSchema = Type.Object({
  server: RegistryServerDetailSchema,
  _meta: Type.Optional(Type.Object({ [OFFICIAL_META_KEY]: Type.Optional(OfficialMetaSchema) })),
});
export type RegistryServerResponse = Static<typeof RegistryServerResponseSchema>;

/** The registry's list response (`ServerList`). */
export interface RegistryServerList {
  servers: Record<string, unknown>[];
  metadata?: { nextCursor?: string | undefined; count?: number | undefined } | undefined;
}

/** The registry metadata of one entry, as read. */
export interface OfficialMeta {
  readonly status: string | undefined;
  readonly publishedAt: string | undefined;
  readonly updatedAt: string | undefined;
  readonly isLatest: boolean | undefined;
}

/** An entry the index holds: the registry's own JSON, and which registry it came from. */
export interface IndexedEntry {
  readonly name: string;
  readonly version: string;
  /** The entry as received (a copy), so the index can be saved in the registry's format. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly server: RegistryServerDetail;
  readonly official: OfficialMeta;
  /** Base URL of the registry it was synced from (or configured for a file), for `registry_url`. */
  readonly origin: string | undefined;
}

/** A server the ranking may recommend: the latest active version of a registry entry, or a configured peer. */
export interface Candidate {
  readonly source: 'registry' | 'peer';
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly version: string | undefined;
  /** Extra words the server author attached (peers). */
  readonly keywords: readonly string[];
  readonly packages: readonly Package[];
  readonly remotes: readonly Remote[];
  readonly authFlow: string | undefined;
  readonly registryUrl: string | undefined;
  readonly repositoryUrl: string | undefined;
  readonly websiteUrl: string | undefined;
}

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

let entryValidator: ReturnType<typeof Compile<typeof RegistryServerResponseSchema>> | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointerOf(error: { instancePath: string; keyword: string; params?: unknown } | undefined): string {
  if (error === undefined) return '';
  if (error.keyword === 'required') {
    const missing = (error.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
    if (missing !== undefined) return `${error.instancePath}/${missing}`;
  }
  return error.instancePath;
}

/**
 * Reads one list entry; accepts a bare `server.json` too (no registry
 * metadata: treated as active). The entry's registry is `origin` when
 * given (a sync), else the one recorded in the entry (a saved index), else
 * `fallbackOrigin`. Never throws.
 */
export function parseRegistryEntry(
  input: unknown,
  origin?: string,
  fallbackOrigin?: string,
):
  | { readonly ok: true; readonly entry: IndexedEntry }
  | { readonly ok: false; readonly pointer: string; readonly message: string } {
  entryValidator ??= Compile(RegistryServerResponseSchema);
  const wrapped = isRecord(input) && !('server' in input) && 'name' in input ? { server: input } : input;
  if (!entryValidator.Check(wrapped)) {
    const first = [...entryValidator.Errors(wrapped)][0];
    return { ok: false, pointer: pointerOf(first), message: first?.message ?? 'is not a registry server entry' };
  }
  const raw = JSON.parse(JSON.stringify(wrapped)) as Record<string, unknown>;
  const meta = wrapped._meta?.[OFFICIAL_META_KEY];
  const ours = isRecord(raw._meta) ? raw._meta[DISCOVERY_ID] : undefined;
  const recorded = isRecord(ours) && typeof ours.registry === 'string' ? ours.registry : undefined;
  return {
    ok: true,
    entry: {
      name: wrapped.server.name,
      version: wrapped.server.version,
      raw,
      server: wrapped.server,
      official: {
        status: meta?.status,
        publishedAt: meta?.publishedAt,
        updatedAt: meta?.updatedAt,
        isLatest: meta?.isLatest,
      },
      origin: origin ?? recorded ?? fallbackOrigin,
    },
  };
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function comparePrerelease(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  // A release sorts after any of its prereleases.
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const diff = Number(x) - Number(y);
      if (diff !== 0) return Math.sign(diff);
    } else if (xn !== yn) {
      return xn ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/**
 * Orders two version strings: semantic versions by precedence, any
 * semantic version above a non-semantic one, non-semantic ones by plain
 * string order. Negative, zero or positive, as for `Array.sort`.
 */
export function compareVersions(a: string, b: string): number {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (x && y) {
    for (let i = 1; i <= 3; i += 1) {
      const diff = Number(x[i]) - Number(y[i]);
      if (diff !== 0) return Math.sign(diff);
    }
    return comparePrerelease(x[4], y[4]);
  }
  if (x) return 1;
  if (y) return -1;
  return a === b ? 0 : a < b ? -1 : 1;
}

function time(value: string | undefined): number {
  if (value === undefined) return Number.NEGATIVE_INFINITY;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
}

/**
 * The version of one server the index recommends: deleted versions never
 * count; among the rest, the one the registry flags `isLatest` (the most
 * recently published if several are flagged), else the highest version.
 * `undefined` when every version is deleted. Pure.
 */
export function pickLatest(versions: readonly IndexedEntry[]): IndexedEntry | undefined {
  const alive = versions.filter((entry) => entry.official.status !== 'deleted');
  const flagged = alive.filter((entry) => entry.official.isLatest === true);
  const pool = flagged.length > 0 ? flagged : alive;
  let best: IndexedEntry | undefined;
  for (const entry of pool) {
    if (best === undefined) {
      best = entry;
      continue;
    }
    const order =
      flagged.length > 0
        ? Math.sign(time(entry.official.publishedAt) - time(best.official.publishedAt)) ||
          compareVersions(entry.version, best.version)
        : compareVersions(entry.version, best.version) ||
          Math.sign(time(entry.official.publishedAt) - time(best.official.publishedAt));
    if (order > 0) best = entry;
  }
  return best;
}

/** Whether a registry status lets the index recommend a server: absent (a bare `server.json`) or `active`. */
export function isRecommendable(entry: IndexedEntry): boolean {
  return entry.official.status === undefined || entry.official.status === 'active';
}

const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key)$/i;

/**
 * How a client authenticates, as far as `server.json` tells: `api_key` when
 * the way to connect needs a secret input (a secret header of the remote, a
 * secret environment variable or argument of the package), `oauth2` for a
 * remote without one (MCP authorization, discovered when connecting; the
 * server may need none), `none` for a package without secrets. Pure.
 */
export function deriveAuthFlow(server: RegistryServerDetail): string | undefined {
  const remote = (server.remotes ?? []).find((candidate) => httpsRemote(candidate) !== undefined);
  if (remote !== undefined) {
    const secret = (remote.headers ?? []).some((header) => header.isSecret === true || SECRET_HEADER.test(header.name));
    return secret ? 'api_key' : 'oauth2';
  }
  const packages = server.packages ?? [];
  if (packages.length === 0) return undefined;
  const secret = packages.some(
    (entry) =>
      (entry.environmentVariables ?? []).some((variable) => variable.isSecret === true) ||
      [...(entry.packageArguments ?? []), ...(entry.runtimeArguments ?? [])].some(
        (argument) => argument.isSecret === true,
      ),
  );
  return secret ? 'api_key' : 'none';
}

function httpsRemote(transport: Static<typeof TransportSchema>): Remote | undefined {
  if (transport.type !== 'streamable-http' && transport.type !== 'sse') return undefined;
  if (transport.url === undefined || !transport.url.startsWith('https://')) return undefined;
  return { type: transport.type, url: transport.url };
}

/** The URL of one server version on the registry it came from (`/v0.1/servers/{name}/versions/{version}`). */
export function registryEntryUrl(origin: string, name: string, version: string): string {
  const base = origin.endsWith('/') ? origin : `${origin}/`;
  return new URL(`v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`, base).href;
}

/** What the ranking sees of an index entry. Pure. */
export function candidateOf(entry: IndexedEntry): Candidate {
  const server = entry.server;
  const remotes = (server.remotes ?? []).flatMap((transport) => {
    const remote = httpsRemote(transport);
    return remote === undefined ? [] : [remote];
  });
  const packages = (server.packages ?? []).slice(0, 10).map((item) => {
    const out: Package = { registry_type: item.registryType, identifier: item.identifier };
    if (item.version !== undefined) out.version = item.version;
    if (item.transport !== undefined) out.transport = item.transport.type;
    return out;
  });
  return {
    source: 'registry',
    name: entry.name,
    title: server.title,
    description: server.description,
    version: entry.version,
    keywords: [],
    packages,
    remotes,
    authFlow: deriveAuthFlow(server),
    registryUrl: entry.origin === undefined ? undefined : registryEntryUrl(entry.origin, entry.name, entry.version),
    repositoryUrl: server.repository?.url,
    websiteUrl: server.websiteUrl,
  };
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
        (time(existing.official.updatedAt) > time(entry.official.updatedAt) ||
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
        if (best === undefined || time(entry.official.updatedAt) > time(best)) best = entry.official.updatedAt;
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
