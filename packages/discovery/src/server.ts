import {
  ConfigurationError,
  ExtensionError,
  registerMethodTools,
  type ExtendedServer,
  type MethodHandler,
  type ServerExtension,
  type ToolInfo,
} from '@ext/core';
import * as z from 'zod';
import { parseRecommendRequest } from './request.js';
import { DEFAULT_SYNONYM_GROUPS, explain, rank, synonymTable, type Ranked } from './rank.js';
import { RegistryIndex, type Candidate } from './registry.js';
import {
  DISCOVERY_ID,
  DISCOVERY_PACKAGE,
  DISCOVERY_WIRE_VERSION,
  MAX_CAPABILITY_LENGTH,
  type DiscoveryServerSettings,
  type Recommendation,
  type RecommendResult,
} from './schema.js';

export { RegistryIndex } from './registry.js';
export type { RegistryIndexOptions, AddReport, SkippedEntry } from './registry.js';
export { loadRegistryFile, saveRegistryFile, syncRegistry, RegistrySyncError } from './sync.js';
export type {
  LoadRegistryFileOptions,
  LoadReport,
  SyncRegistryOptions,
  SyncReport,
  RegistrySyncErrorCode,
} from './sync.js';

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

function positiveInteger(value: number | undefined, fallback: number, option: string): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1)
    throw new ConfigurationError('INVALID_OPTION', `discoveryServer: "${option}" must be a positive integer`);
  return resolved;
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

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** The wire form of one ranked candidate (seed `ServerRecommendation` plus explanation). Pure. */
export function toRecommendation(capability: string, ranked: Ranked): Recommendation {
  const candidate = ranked.candidate;
  const out: Recommendation = {
    capability,
    server_name: candidate.name,
    description: candidate.description,
    match_confidence: ranked.confidence,
    score: round(ranked.score),
    reason: explain(ranked),
    source: candidate.source,
  };
  if (candidate.title !== undefined) out.title = candidate.title;
  if (candidate.version !== undefined) out.version = candidate.version;
  if (candidate.registryUrl !== undefined) out.registry_url = candidate.registryUrl;
  if (candidate.authFlow !== undefined) out.auth_flow = candidate.authFlow;
  if (candidate.remotes.length > 0) out.remotes = candidate.remotes.map((remote) => ({ ...remote }));
  if (candidate.packages.length > 0) out.packages = candidate.packages.map((item) => ({ ...item }));
  if (candidate.repositoryUrl !== undefined) out.repository_url = candidate.repositoryUrl;
  if (candidate.websiteUrl !== undefined) out.website_url = candidate.websiteUrl;
  return out;
}

/**
 * The server half of `@ext/discovery`: answers
 * `io.github.mcp-ext/discovery/recommend { capability_needed }` with ranked
 * recommendations from a local index of MCP Registry entries and from the
 * peers the server author configured. The query is answered locally: it is
 * never sent to a registry or logged (DISC-12).
 *
 * @example
 * ```ts
 * const index = new RegistryIndex();
 * await syncRegistry(index, { url: 'https://registry.modelcontextprotocol.io' });
 * composeServer([discoveryServer({ index, peers: [{ name: 'com.example/billing', description: 'Invoices and refunds', url: 'https://billing.example.com/mcp' }] })]);
 * ```
 */
export function discoveryServer(options: DiscoveryServerOptions = {}): ServerExtension {
  const index = options.index ?? new RegistryIndex();
  // Duck-typed: a RegistryIndex from another copy of this package works too.
  if (typeof (index as Partial<RegistryIndex>).candidates !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'discoveryServer: "index" must be a RegistryIndex');
  }
  const maxResults = positiveInteger(options.maxResults, 20, 'maxResults');
  const defaultResults = Math.min(positiveInteger(options.defaultResults, 5, 'defaultResults'), maxResults);
  const peers = (options.peers ?? []).map(peerCandidate);
  const peerNames = new Set(peers.map((peer) => peer.name));
  if (peerNames.size !== peers.length)
    throw new ConfigurationError('INVALID_OPTION', 'discoveryServer: two peers have the same name');
  const exclude = new Set(options.exclude ?? []);
  const synonyms = synonymTable(options.synonyms ?? DEFAULT_SYNONYM_GROUPS);

  const candidates = (): Candidate[] => [
    ...peers.filter((peer) => !exclude.has(peer.name)),
    // A configured peer replaces the registry entry of the same name.
    ...index.candidates().filter((candidate) => !exclude.has(candidate.name) && !peerNames.has(candidate.name)),
  ];

  const recommend: MethodHandler = (params) => {
    const parsed = parseRecommendRequest(params);
    if (!parsed.ok) {
      throw new ExtensionError('invalid_input', 'INVALID_INPUT', parsed.message, {
        userActionable: false,
        suggestion: `Send { "capability_needed": "<what you need, 1 to ${MAX_CAPABILITY_LENGTH} characters>" }.`,
        details: { field: parsed.field, pointer: parsed.pointer },
      });
    }
    const request = parsed.value;
    const pool = candidates();
    const ranked = rank(request.capability_needed, pool, {
      synonyms,
      minConfidence: request.min_confidence,
      limit: Math.min(request.max_results ?? defaultResults, maxResults),
    });
    const result: RecommendResult = {
      capability_needed: request.capability_needed,
      recommendations: ranked.map((entry) => toRecommendation(request.capability_needed, entry)),
      index_size: pool.length,
    };
    return result as unknown as Record<string, unknown>;
  };

  const settings: DiscoveryServerSettings = { version: DISCOVERY_WIRE_VERSION, max_results: maxResults };
  return { side: 'server', name: DISCOVERY_PACKAGE, ids: [DISCOVERY_ID], settings, methods: { recommend } };
}

/** The tool name of {@link registerDiscoveryTools}. */
export const DISCOVERY_TOOL_NAME = 'recommend_servers';

/**
 * Serves `<id>/recommend` as the tool `recommend_servers` too, for clients
 * that can only call tools (DISC-13). It runs the method's own handler.
 */
export function registerDiscoveryTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  return registerMethodTools(server, DISCOVERY_PACKAGE, [
    {
      verb: 'recommend',
      name: DISCOVERY_TOOL_NAME,
      description:
        'Recommends other MCP servers for a capability this server lacks, ranked, with how to connect and authenticate. Answered from a local index: the query is not sent anywhere.',
      inputSchema: z.object({
        capability_needed: z
          .string()
          .min(1)
          .max(MAX_CAPABILITY_LENGTH)
          .describe('The capability needed, in a few words ("design mockups").'),
        max_results: z.number().int().min(1).optional().describe('How many recommendations at most.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      summary: (result) => {
        const list = Array.isArray(result.recommendations) ? (result.recommendations as Recommendation[]) : [];
        if (list.length === 0) return 'No server found for this capability.';
        return `Recommended: ${list.map((entry) => `${entry.server_name} (${entry.match_confidence})`).join(', ')}.`;
      },
    },
  ]);
}
