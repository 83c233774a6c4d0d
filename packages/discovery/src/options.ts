/** The options of `discoveryServer`: the peers a server author configures, and the checks both pass at startup. */
import { ConfigurationError } from '@ext/core';
import { positiveIntegerOption, type Resolved } from '@ext/core/kit';
import type { Candidate } from './candidate.js';
import { DEFAULT_SYNONYM_GROUPS, synonymTable } from './rank.js';
import type { RegistryIndex } from './registry.js';

/** A server this server trusts and recommends itself, beside the registry index (the seed's decentralized variant). */
export interface DiscoveryPeer {
  /** How the peer is known: its registry name when it has one (then it replaces that registry entry), or any name. */
  readonly name: string;
  /** What it does, in the words a capability query would use. */
  readonly description: string;
  readonly title?: string | undefined;
  /** More words it should be found by ("figma", "wireframe"). */
  readonly keywords?: readonly string[] | undefined;
  /** Its remote MCP endpoint (https). */
  readonly url?: string | undefined;
  /** Transport of `url`. Default `streamable-http`. */
  readonly transport?: 'streamable-http' | 'sse' | undefined;
  /** Where to read more about it (https). */
  readonly registryUrl?: string | undefined;
  /** How a client authenticates, e.g. `oauth2`, `oauth2_device`, `api_key`, `none`. Default: not said. */
  readonly authFlow?: string | undefined;
  readonly version?: string | undefined;
}

export interface DiscoveryServerOptions {
  /**
   * The registry index to recommend from: a {@link RegistryIndex}, or
   * anything that lists candidates the same way. Default: an empty index
   * (peers only).
   */
  readonly index?: Pick<RegistryIndex, 'candidates'> | undefined;
  /** Servers this server recommends itself. Default: none. */
  readonly peers?: readonly DiscoveryPeer[] | undefined;
  /** Recommendations per answer when the request names no `max_results`. Default 5. */
  readonly defaultResults?: number | undefined;
  /** Most recommendations per answer; a larger `max_results` is lowered to it. Default 20. */
  readonly maxResults?: number | undefined;
  /** Names never recommended (typically this server's own registry name). Default: none. */
  readonly exclude?: readonly string[] | undefined;
  /** Groups of words a query may use for one another. Default: a small built-in table; `[]` turns synonyms off. */
  readonly synonyms?: readonly (readonly string[])[] | undefined;
}

function checkUrl(value: string | undefined, where: string): void {
  if (value === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigurationError('INVALID_OPTION', `discoveryServer: ${where} must be an https URL`);
  }
  if (parsed.protocol !== 'https:')
    throw new ConfigurationError('INVALID_OPTION', `discoveryServer: ${where} must be an https URL`);
}

function peerCandidate(peer: DiscoveryPeer, index: number): Candidate {
  const where = `peers[${index}]`;
  if (typeof peer.name !== 'string' || peer.name.trim() === '' || peer.name.length > 200) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `discoveryServer: ${where}.name must be a name of 1 to 200 characters`,
    );
  }
  if (typeof peer.description !== 'string' || peer.description.trim() === '') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `discoveryServer: ${where}.description must say what the server does`,
    );
  }
  checkUrl(peer.url, `${where}.url`);
  checkUrl(peer.registryUrl, `${where}.registryUrl`);
  // Options may come from untyped configuration: check what the types promise.
  const transport: unknown = peer.transport;
  if (transport !== undefined && transport !== 'streamable-http' && transport !== 'sse') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `discoveryServer: ${where}.transport must be "streamable-http" or "sse"`,
    );
  }
  if (peer.keywords !== undefined && !peer.keywords.every((keyword) => typeof keyword === 'string')) {
    throw new ConfigurationError('INVALID_OPTION', `discoveryServer: ${where}.keywords must be strings`);
  }
  return {
    source: 'peer',
    name: peer.name,
    title: peer.title,
    description: peer.description,
    version: peer.version,
    keywords: [...(peer.keywords ?? [])],
    packages: [],
    remotes: peer.url === undefined ? [] : [{ type: peer.transport ?? 'streamable-http', url: peer.url }],
    authFlow: peer.authFlow,
    registryUrl: peer.registryUrl,
    repositoryUrl: undefined,
    websiteUrl: undefined,
  };
}

/** The options checked and resolved: what the `recommend` method works with. */
export type ResolvedOptions = Resolved<Pick<DiscoveryServerOptions, 'index' | 'maxResults' | 'defaultResults'>> & {
  readonly peers: readonly Candidate[];
  readonly peerNames: ReadonlySet<string>;
  readonly exclude: ReadonlySet<string>;
  readonly synonyms: ReadonlyMap<string, ReadonlySet<string>>;
};

/** Checks `options` (a `ConfigurationError` `INVALID_OPTION` naming the option) and fills in the defaults. */
export function resolveOptions(options: DiscoveryServerOptions, defaultIndex: () => RegistryIndex): ResolvedOptions {
  const {
    index = defaultIndex(),
    peers: declared = [],
    defaultResults = 5,
    maxResults = 20,
    exclude = [],
    synonyms = DEFAULT_SYNONYM_GROUPS,
  } = options;
  // Duck-typed: a RegistryIndex from another copy of this package works too.
  if (typeof (index as Partial<RegistryIndex>).candidates !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'discoveryServer: "index" must be a RegistryIndex');
  }
  positiveIntegerOption('discoveryServer', '"maxResults"', maxResults);
  positiveIntegerOption('discoveryServer', '"defaultResults"', defaultResults);
  const peers = declared.map(peerCandidate);
  const peerNames = new Set(peers.map((peer) => peer.name));
  if (peerNames.size !== peers.length)
    throw new ConfigurationError('INVALID_OPTION', 'discoveryServer: two peers have the same name');
  return {
    index,
    maxResults,
    defaultResults: Math.min(defaultResults, maxResults),
    peers,
    peerNames,
    exclude: new Set(exclude),
    synonyms: synonymTable(synonyms),
  };
}
