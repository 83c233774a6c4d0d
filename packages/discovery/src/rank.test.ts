import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { confidenceOf, DEFAULT_SYNONYM_GROUPS, explain, rank, stem, synonymTable, terms } from './rank.js';
import type { Candidate } from './candidate.js';
import { RegistryIndex } from './registry.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/registry.json', import.meta.url), 'utf8')) as {
  servers: unknown[];
};
const index = new RegistryIndex({ registryUrl: 'https://registry.modelcontextprotocol.io' });
index.add(fixture.servers);
const candidates = index.candidates();
const synonyms = synonymTable(DEFAULT_SYNONYM_GROUPS);

function top(query: string): { name: string; confidence: string } | undefined {
  const first = rank(query, candidates, { synonyms })[0];
  return first === undefined ? undefined : { name: first.candidate.name, confidence: first.confidence };
}

describe('the fixture index', () => {
  it('holds at least 50 realistic registry entries', () => {
    expect(fixture.servers.length).toBeGreaterThanOrEqual(50);
    expect(candidates.length).toBeGreaterThanOrEqual(50);
  });
});

describe('terms and stems', () => {
  it('folds plurals, -ing and -ed, case, diacritics and camelCase, and drops stopwords', () => {
    expect(terms('Send the Messages to my Team')).toEqual(['send', 'message', 'team']);
    expect(terms('design_mockups')).toEqual(['design', 'mockup']);
    expect(terms('MongoDB issues, searches, sending, designed')).toEqual([
      'mongo',
      'db',
      'issue',
      'search',
      'send',
      'design',
    ]);
    expect(terms('Café résumé')).toEqual(['cafe', 'resume']);
    expect(terms('an MCP server tool for the API')).toEqual([]);
    expect(stem('running')).toBe('run');
    expect(stem('status')).toBe('status');
  });

  it('never throws and only yields lower-case stems without separators', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        for (const term of terms(text)) {
          expect(term).toBe(term.toLowerCase());
          expect(term).not.toMatch(/[\s_\-./]/);
          expect(term.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('ranking on the fixture index (DISC-8, DISC-9)', () => {
  it.each([
    // The seed's example: a design mockup need finds the design tool, the wireframe generator after it.
    ['design_mockup', 'com.pixelforge/design', 'high'],
    ['query a postgres database', 'io.github.pgtools/postgres', 'high'],
    ['deploy to kubernetes', 'io.github.kubetools/kubernetes', 'high'],
    ['translate documents', 'com.lingua/translate', 'high'],
    ['take a screenshot of a web page', 'io.github.headless/browser', 'high'],
    ['weather forecast for Berlin', 'com.skycast/weather', 'medium'],
    ['create a jira ticket', 'com.tracklane/issues', 'medium'],
    ['refund a payment', 'com.paystream/payments', 'high'],
    ['transcribe audio', 'io.github.transcribe-oss/speech', 'high'],
    ['scan container images for vulnerabilities', 'com.secscan/vulnerabilities', 'high'],
    ['read my inbox', 'com.postbox/email', 'high'],
  ])('"%s" ranks %s first, with %s confidence', (query, name, confidence) => {
    expect(top(query)).toEqual({ name, confidence });
  });

  it('recommends the latest active version, never a deprecated or deleted server', () => {
    expect(rank('recipes', candidates)[0]?.candidate.version).toBe('2.1.0');
    expect(rank('quiz flashcards', candidates)[0]?.candidate).toMatchObject({
      name: 'com.quizly/quiz',
      version: '1.0.0',
    });
    expect(rank('postgres', candidates)[0]?.candidate.version).toBe('0.6.0');
    const everything = rank(
      'sketch design artboards crawl scrape websites pop3 email kanban cards crypto wallet',
      candidates,
    ).map((r) => r.candidate.name);
    for (const gone of [
      'io.github.vectorworks-oss/sketch-reader',
      'io.github.crawlkit/crawler',
      'io.github.oldmail/pop3',
      'io.github.kanbanize/boards',
      'io.github.fakewallet/crypto-wallet',
    ]) {
      expect(everything).not.toContain(gone);
    }
  });

  it('explains each place: the words matched, where, and the words not found', () => {
    const [first, second] = rank('design_mockup', candidates, { synonyms });
    expect(first !== undefined && explain(first)).toBe(
      'Matched "design" in the name, "mockup" (as "mockups") in the description.',
    );
    expect(second?.candidate.name).toBe('io.github.pencil-labs/wireframe-kit');
    expect(second !== undefined && explain(second)).toBe(
      'Matched "design" (as its synonym "wireframe") in the name, "mockup" (as "mockups") in the description.',
    );
    const partial = rank('weather forecast for Berlin', candidates, { synonyms })[0];
    expect(partial !== undefined && explain(partial)).toMatch(/no match for "berlin"\.$/);
  });

  it('finds nothing for an unknown capability or a query of stopwords only', () => {
    expect(rank('zyxwvut', candidates, { synonyms })).toEqual([]);
    expect(rank('an mcp server for the api', candidates, { synonyms })).toEqual([]);
    expect(rank('', candidates, { synonyms })).toEqual([]);
  });

  it('synonyms widen a search at half weight, and can be turned off', () => {
    const withSynonyms = rank('bug', candidates, { synonyms }).map((r) => r.candidate.name);
    expect(withSynonyms).toContain('com.tracklane/issues');
    expect(rank('bug', candidates).map((r) => r.candidate.name)).not.toContain('com.tracklane/issues');
  });

  it('honours min confidence and limit', () => {
    const all = rank('send a chat message', candidates, { synonyms });
    expect(all.some((r) => r.confidence === 'low')).toBe(true);
    const strong = rank('send a chat message', candidates, { synonyms, minConfidence: 'medium' });
    expect(strong.every((r) => r.confidence !== 'low')).toBe(true);
    expect(strong.length).toBeLessThan(all.length);
    expect(rank('send a chat message', candidates, { synonyms, limit: 2 })).toHaveLength(2);
  });

  it('on equal scores prefers a configured peer, then a remote server, then the name', () => {
    const base: Candidate = {
      source: 'registry',
      name: 'a.example/one',
      title: undefined,
      description: 'Tracks parcels',
      version: '1.0.0',
      keywords: [],
      packages: [],
      remotes: [],
      authFlow: undefined,
      registryUrl: undefined,
      repositoryUrl: undefined,
      websiteUrl: undefined,
    };
    const remote: Candidate = {
      ...base,
      name: 'z.example/remote',
      remotes: [{ type: 'streamable-http', url: 'https://z.example/mcp' }],
    };
    const peer: Candidate = { ...base, name: 'zz.example/peer', source: 'peer' };
    const other: Candidate = { ...base, name: 'b.example/two' };
    expect(rank('parcels', [other, remote, base, peer]).map((r) => r.candidate.name)).toEqual([
      'zz.example/peer',
      'z.example/remote',
      'a.example/one',
      'b.example/two',
    ]);
  });

  it('is sorted, bounded, consistent with its confidence rule, and independent of the order of the index', () => {
    const vocabulary = [...new Set(candidates.flatMap((candidate) => candidate.description.split(/\W+/)))].filter(
      (word) => word.length > 2,
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...vocabulary), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        (picked, seed) => {
          const query = picked.join(' ');
          const ranked = rank(query, candidates, { synonyms });
          for (let i = 0; i < ranked.length; i += 1) {
            const entry = ranked[i]!;
            expect(entry.score).toBeGreaterThan(0);
            expect(entry.score).toBeLessThanOrEqual(1);
            expect(entry.confidence).toBe(confidenceOf(entry.score, entry.coverage));
            if (i > 0) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(entry.score);
          }
          const shuffled = [...candidates].sort(
            (a, b) => ((a.name.length * 31 + seed) % 7) - ((b.name.length * 31 + seed) % 7),
          );
          expect(rank(query, shuffled, { synonyms }).map((r) => r.candidate.name)).toEqual(
            ranked.map((r) => r.candidate.name),
          );
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('query bounds', () => {
  it('uses the first 16 distinct words of a query', () => {
    const filler = Array.from({ length: 16 }, (_, i) => `qzx${String.fromCharCode(97 + i)}vk`).join(' ');
    expect(rank(`${filler} weather`, candidates, { synonyms })).toEqual([]);
    expect(rank(`weather ${filler}`, candidates, { synonyms })[0]?.candidate.name).toBe('com.skycast/weather');
  });
});
