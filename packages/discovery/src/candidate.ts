/** What the ranking sees of a server: a candidate made from a registry entry (or a configured peer). Pure. */
import type { IndexedEntry, RegistryServerDetail, RegistryTransport } from './registry-entry.js';
import type { Package, Remote } from './schema.js';

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

function httpsRemote(transport: RegistryTransport): Remote | undefined {
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
