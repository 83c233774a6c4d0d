/**
 * The MCP Registry's entry format, as its `GET /v0.1/servers` list answers
 * it, and how one entry is read into the index. Pure.
 */
import { firstViolation, isRecord, lazyValidator } from '@ext/core/kit';
import Type, { type Static } from 'typebox';
import { DISCOVERY_ID } from './schema.js';

/**
 * Where the registry's own metadata sits in an entry: `{ server: <server.json>, _meta: {
 * "io.modelcontextprotocol.registry/official": { status, publishedAt, updatedAt, isLatest } } }`.
 * Entries are read leniently (unknown fields kept, optional ones optional)
 * but bounded, because an index is input from outside.
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

/** One way to connect that `server.json` lists (a package's transport, or a remote). */
export type RegistryTransport = Static<typeof TransportSchema>;

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

const entryValidator = lazyValidator(RegistryServerResponseSchema);

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
  const validator = entryValidator();
  const wrapped = isRecord(input) && !('server' in input) && 'name' in input ? { server: input } : input;
  if (!validator.Check(wrapped)) {
    const errors = [...validator.Errors(wrapped)];
    return {
      ok: false,
      pointer: firstViolation(errors).pointer,
      message: errors[0]?.message ?? 'is not a registry server entry',
    };
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
