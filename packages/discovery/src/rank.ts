/**
 * Ranking (SPEC section 4): the capability asked for and every candidate are
 * cut into word stems; each stem of the query scores by the strongest place
 * it is found in a candidate; the candidate's score is the mean over the
 * query's stems, in [0, 1]. Pure functions, no I/O.
 */
import type { Candidate } from './candidate.js';
import { MATCH_CONFIDENCES, type MatchConfidence } from './schema.js';

/** Where a query term can be found, and how much a match there counts (out of 3). */
export const FIELD_WEIGHTS = {
  name: 3,
  title: 3,
  keywords: 3,
  vendor: 2,
  description: 2,
  package: 1,
} as const;
export type MatchField = keyof typeof FIELD_WEIGHTS;

const MAX_WEIGHT = 3;

/** Distinct query words taken into account; further ones are ignored. */
export const MAX_QUERY_TERMS = 16;

/** A match by synonym or by shared prefix counts half of an exact one. */
export const PARTIAL_MATCH_FACTOR = 0.5;

/**
 * Words that say nothing about a capability (English function words, and
 * words every MCP server description uses).
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  [
    'a',
    'an',
    'and',
    'any',
    'are',
    'as',
    'at',
    'be',
    'by',
    'can',
    'do',
    'for',
    'from',
    'get',
    'has',
    'have',
    'help',
    'i',
    'in',
    'into',
    'is',
    'it',
    'its',
    'let',
    'like',
    'me',
    'my',
    'need',
    'of',
    'on',
    'or',
    'our',
    'please',
    'some',
    'something',
    'that',
    'the',
    'their',
    'them',
    'this',
    'to',
    'use',
    'using',
    'via',
    'want',
    'we',
    'which',
    'who',
    'will',
    'with',
    'you',
    'your',
    'mcp',
    'server',
    'model',
    'context',
    'protocol',
    'tool',
    'api',
    'integration',
    'access',
    'support',
    'provide',
    'allow',
    'let',
  ].map(stem),
);

/** Groups of words a query may use for one another (each matched at {@link PARTIAL_MATCH_FACTOR}). */
export const DEFAULT_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['mockup', 'wireframe', 'prototype', 'design'],
  ['ticket', 'issue', 'bug'],
  ['message', 'chat'],
  ['email', 'mail', 'inbox'],
  ['document', 'doc', 'docs'],
  ['database', 'db', 'sql'],
  ['repository', 'repo'],
  ['calendar', 'meeting', 'schedule'],
  ['spreadsheet', 'sheet'],
  ['payment', 'billing', 'invoice'],
  ['deploy', 'deployment', 'release'],
  ['translate', 'translation'],
  ['weather', 'forecast'],
  ['monitoring', 'observability', 'metric'],
  ['browser', 'web', 'scrape', 'crawl'],
];

/**
 * A light English stemmer: folds plurals and `-ing` / `-ed` endings so that
 * "mockups", "sending" and "issues" meet "mockup", "send" and "issue".
 * Query and candidates go through the same function, so they meet.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|sses|xes|zes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is'))
    w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) {
    w = w.slice(0, -3);
    if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
    return w;
  }
  if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) {
    w = w.slice(0, -2);
    if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1);
  }
  return w;
}

/** A word of a text as written (lower-cased), and its stem. */
export interface Term {
  readonly stem: string;
  readonly word: string;
}

/**
 * The words of a text with their stems, in order: splits on anything not a
 * letter or digit and at camelCase humps, lower-cases, drops diacritics,
 * one-letter words and stopwords.
 */
export function words(text: string): Term[] {
  const spaced = text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2');
  const folded = spaced.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const out: Term[] = [];
  for (const word of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || (word.length < 2 && !/\d/.test(word))) continue;
    const stemmed = stem(word);
    if (!STOPWORDS.has(stemmed)) out.push({ stem: stemmed, word });
  }
  return out;
}

/** The stems of a text's words (see {@link words}). */
export function terms(text: string): string[] {
  return words(text).map((term) => term.stem);
}

/** Builds the synonym lookup from groups: each stem maps to the other stems of its groups. */
export function synonymTable(groups: readonly (readonly string[])[]): ReadonlyMap<string, ReadonlySet<string>> {
  const table = new Map<string, Set<string>>();
  for (const group of groups) {
    const stems = [...new Set(group.flatMap((word) => terms(word)))];
    for (const word of stems) {
      const set = table.get(word) ?? new Set<string>();
      for (const other of stems) if (other !== word) set.add(other);
      table.set(word, set);
    }
  }
  return table;
}

/** The vendor words of a reverse-DNS namespace: `com.figma` -> `figma`; none for hosted namespaces (`io.github.user`). */
function vendorText(name: string): string {
  const namespace = name.slice(0, name.indexOf('/'));
  const labels = namespace.split('.');
  if (labels.length > 1 && /^(github|gitlab|bitbucket)$/i.test(labels[1] ?? '')) return '';
  return labels.slice(1).join(' ');
}

/** Per field: each stem found there, with the word it was written as. */
type Document = ReadonlyMap<MatchField, ReadonlyMap<string, string>>;

function fieldOf(...texts: readonly string[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const text of texts) for (const term of words(text)) if (!out.has(term.stem)) out.set(term.stem, term.word);
  return out;
}

const documents = new WeakMap<Candidate, Document>();

function documentOf(candidate: Candidate): Document {
  const cached = documents.get(candidate);
  if (cached !== undefined) return cached;
  const serverPart = candidate.name.slice(candidate.name.indexOf('/') + 1);
  const doc: Document = new Map<MatchField, ReadonlyMap<string, string>>([
    ['name', fieldOf(serverPart)],
    ['title', fieldOf(candidate.title ?? '')],
    ['keywords', fieldOf(...candidate.keywords)],
    ['vendor', fieldOf(vendorText(candidate.name))],
    ['description', fieldOf(candidate.description)],
    ['package', fieldOf(...candidate.packages.map((item) => item.identifier))],
  ]);
  documents.set(candidate, doc);
  return doc;
}

/** How one query term matched a candidate. */
export interface TermMatch {
  /** The query's word (its stem is what matched). */
  readonly term: string;
  readonly field: MatchField;
  /** An exact stem match, or a match by synonym or by shared prefix. */
  readonly via: 'exact' | 'synonym' | 'prefix';
  /** The candidate's word that matched. */
  readonly matched: string;
  /** In [0, 1]: field weight / 3, halved for a synonym or prefix match. */
  readonly score: number;
}

function prefixMatch(term: string, word: string): boolean {
  if (term.length < 4 || word.length < 4) return false;
  return word.startsWith(term) || term.startsWith(word);
}

/** The best match of one query term in a candidate, or `undefined`. */
export function matchTerm(
  term: Term,
  candidate: Candidate,
  synonyms: ReadonlyMap<string, ReadonlySet<string>>,
): TermMatch | undefined {
  let best: TermMatch | undefined;
  const consider = (match: TermMatch): void => {
    if (best === undefined || match.score > best.score) best = match;
  };
  const alternatives = synonyms.get(term.stem) ?? new Set<string>();
  for (const [field, found] of documentOf(candidate)) {
    const weight = FIELD_WEIGHTS[field] / MAX_WEIGHT;
    const exact = found.get(term.stem);
    if (exact !== undefined) {
      consider({ term: term.word, field, via: 'exact', matched: exact, score: weight });
      continue;
    }
    for (const [stemmed, word] of found) {
      if (alternatives.has(stemmed))
        consider({ term: term.word, field, via: 'synonym', matched: word, score: weight * PARTIAL_MATCH_FACTOR });
      else if (prefixMatch(term.stem, stemmed))
        consider({ term: term.word, field, via: 'prefix', matched: word, score: weight * PARTIAL_MATCH_FACTOR });
    }
  }
  return best;
}

/** Confidence from score and coverage (SPEC DISC-9). */
export function confidenceOf(score: number, coverage: number): MatchConfidence | undefined {
  if (score <= 0) return undefined;
  if (coverage >= 1 && score >= 0.6) return 'high';
  if (coverage >= 0.5 && score >= 0.3) return 'medium';
  return 'low';
}

/** One ranked candidate, with the facts that explain its place. */
export interface Ranked {
  readonly candidate: Candidate;
  /** Mean over the query's terms of each term's best match score, in [0, 1]. */
  readonly score: number;
  /** Share of the query's terms found at all, in [0, 1]. */
  readonly coverage: number;
  readonly confidence: MatchConfidence;
  readonly matches: readonly TermMatch[];
  /** Query words found nowhere in the candidate. */
  readonly missing: readonly string[];
}

export interface RankOptions {
  /** Synonym lookup from {@link synonymTable}. Default: none. */
  readonly synonyms?: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  /** Drop candidates below this confidence. Default `low` (keep every match). */
  readonly minConfidence?: MatchConfidence | undefined;
  /** Keep at most this many. Default: all. */
  readonly limit?: number | undefined;
}

function hasRemote(candidate: Candidate): number {
  return candidate.remotes.length > 0 ? 1 : 0;
}

/**
 * Ranks candidates for a capability: highest score first; on a tie, a
 * configured peer before a registry entry, then a server one can connect to
 * remotely before one to install, then by name. Candidates matching none of
 * the query's terms are left out. Pure and deterministic.
 */
export function rank(query: string, candidates: readonly Candidate[], options: RankOptions = {}): Ranked[] {
  const seen = new Set<string>();
  // Bounded, so one long query costs the same whatever the index size.
  const queryTerms = words(query)
    .filter((term) => !seen.has(term.stem) && Boolean(seen.add(term.stem)))
    .slice(0, MAX_QUERY_TERMS);
  if (queryTerms.length === 0) return [];
  const synonyms = options.synonyms ?? new Map<string, ReadonlySet<string>>();
  const floor = MATCH_CONFIDENCES.indexOf(options.minConfidence ?? 'low');
  const ranked: Ranked[] = [];
  for (const candidate of candidates) {
    const matches: TermMatch[] = [];
    const missing: string[] = [];
    for (const term of queryTerms) {
      const match = matchTerm(term, candidate, synonyms);
      if (match === undefined) missing.push(term.word);
      else matches.push(match);
    }
    const score = matches.reduce((sum, match) => sum + match.score, 0) / queryTerms.length;
    const coverage = matches.length / queryTerms.length;
    const confidence = confidenceOf(score, coverage);
    if (confidence === undefined || MATCH_CONFIDENCES.indexOf(confidence) > floor) continue;
    ranked.push({ candidate, score, coverage, confidence, matches, missing });
  }
  ranked.sort(
    (a, b) =>
      b.score - a.score ||
      (a.candidate.source === b.candidate.source ? 0 : a.candidate.source === 'peer' ? -1 : 1) ||
      hasRemote(b.candidate) - hasRemote(a.candidate) ||
      (a.candidate.name < b.candidate.name ? -1 : a.candidate.name > b.candidate.name ? 1 : 0),
  );
  return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
}

const FIELD_WORDS: Record<MatchField, string> = {
  name: 'name',
  title: 'title',
  keywords: 'keywords',
  vendor: 'vendor',
  description: 'description',
  package: 'package name',
};

/** One sentence saying why a candidate ranked where it did. */
export function explain(ranked: Ranked): string {
  const found = ranked.matches.map((match) => {
    const how =
      match.via === 'synonym'
        ? ` (as its synonym "${match.matched}")`
        : match.via === 'prefix'
          ? ` (as "${match.matched}")`
          : match.matched === match.term
            ? ''
            : ` (as "${match.matched}")`;
    return `"${match.term}"${how} in the ${FIELD_WORDS[match.field]}`;
  });
  const missing =
    ranked.missing.length === 0 ? '' : `; no match for ${ranked.missing.map((term) => `"${term}"`).join(', ')}`;
  return `Matched ${found.join(', ')}${missing}.`;
}
