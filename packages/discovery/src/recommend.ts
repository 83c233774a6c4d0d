/** The `<id>/recommend` method: the request read, candidates ranked, and the answer in its wire form. */
import { invalidInputError } from '@ext/core/kit';
import { type MethodHandler } from '@ext/core';
import type { Candidate } from './candidate.js';
import type { ResolvedOptions } from './options.js';
import { explain, rank, type Ranked } from './rank.js';
import { parseRecommendRequest } from './request.js';
import { MAX_CAPABILITY_LENGTH, type Recommendation, type RecommendResult } from './schema.js';

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

/** Everything recommendable now: the peers, then the index's servers that no peer replaces, less the excluded. */
function candidates(options: ResolvedOptions): Candidate[] {
  const { peers, peerNames, exclude, index } = options;
  return [
    ...peers.filter((peer) => !exclude.has(peer.name)),
    // A configured peer replaces the registry entry of the same name.
    ...index.candidates().filter((candidate) => !exclude.has(candidate.name) && !peerNames.has(candidate.name)),
  ];
}

/** The handler of `<id>/recommend`. */
export function recommendMethod(options: ResolvedOptions): MethodHandler {
  return (params) => {
    const parsed = parseRecommendRequest(params);
    if (!parsed.ok) {
      throw invalidInputError(
        parsed,
        `Send { "capability_needed": "<what you need, 1 to ${MAX_CAPABILITY_LENGTH} characters>" }.`,
      );
    }
    const request = parsed.value;
    const pool = candidates(options);
    const ranked = rank(request.capability_needed, pool, {
      synonyms: options.synonyms,
      minConfidence: request.min_confidence,
      limit: Math.min(request.max_results ?? options.defaultResults, options.maxResults),
    });
    const result: RecommendResult = {
      capability_needed: request.capability_needed,
      recommendations: ranked.map((entry) => toRecommendation(request.capability_needed, entry)),
      index_size: pool.length,
    };
    return result as unknown as Record<string, unknown>;
  };
}
