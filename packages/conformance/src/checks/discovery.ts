/** The discovery suite: the checks of a server that advertises `io.github.mcp-ext/discovery`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import type { CheckContext, ExtensionSuite, ServerFacts } from '../types.js';
import { detailsOf, expectMethodError, withErrors } from './methods.js';

export const DISCOVERY_ID = 'io.github.mcp-ext/discovery';
const CONFIDENCES = ['high', 'medium', 'low'];
/**
 * Capabilities the kit asks for, in turn, until the server recommends
 * something: the kit cannot know the server's index, and any answer,
 * empty or not, must have the contract's shape.
 */
const QUERIES = ['files', 'search documents', 'calendar', 'email', 'database', 'weather', 'payments', 'design mockup'];

function method(ctx: CheckContext): string {
  return `${ctx.id ?? DISCOVERY_ID}/recommend`;
}

interface Recommended {
  readonly query: string;
  readonly answer: Record<string, unknown>;
  readonly recommendations: Record<string, unknown>[];
}

async function recommend(ctx: CheckContext, probe: Probe, params: Record<string, unknown>): Promise<Recommended> {
  const answer = await probe.request(method(ctx), params);
  ensure(Array.isArray(answer.recommendations), `recommend answered ${describe(answer)}`);
  return { query: String(params.capability_needed), answer, recommendations: answer.recommendations.filter(isRecord) };
}

const found = new WeakMap<ServerFacts, Promise<Recommended>>();

/** The first of the kit's queries the server recommends something for (else the last, empty, answer). */
function firstAnswer(ctx: CheckContext): Promise<Recommended> {
  let answer = found.get(ctx.server);
  if (answer === undefined) {
    answer = (async () => {
      const probe = await ctx.connect(withErrors(ctx, DISCOVERY_ID));
      let last: Recommended | undefined;
      for (const query of QUERIES) {
        last = await recommend(ctx, probe, { capability_needed: query });
        if (last.recommendations.length > 0) return last;
      }
      ensure(last !== undefined, 'no query was sent');
      return last;
    })();
    found.set(ctx.server, answer);
  }
  return answer;
}

/** `@ext/discovery` (SPEC: packages/discovery/SPEC.md). `recommend` has no effects. */
export const discoverySuite: ExtensionSuite = {
  extension: 'discovery',
  ids: [DISCOVERY_ID],
  spec: 'packages/discovery/SPEC.md',
  checks: [
    {
      id: 'discovery/settings',
      requirement: 'DISC-1',
      level: 'MUST',
      title: 'settings carry an integer max_results >= 1',
      run(ctx) {
        const max = ctx.settings.max_results;
        ensure(Number.isSafeInteger(max) && (max as number) >= 1, `max_results is ${describe(max)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'discovery/recommend',
      requirement: 'DISC-7',
      level: 'MUST',
      title:
        'recommend answers { capability_needed, recommendations, index_size }, each a seed ServerRecommendation with a score and a reason',
      async run(ctx) {
        const { query, answer, recommendations } = await firstAnswer(ctx);
        ensure(
          answer.capability_needed === query,
          `capability_needed is ${describe(answer.capability_needed)}, sent ${describe(query)}`,
        );
        ensure(
          Number.isSafeInteger(answer.index_size) && (answer.index_size as number) >= 0,
          `index_size is ${describe(answer.index_size)}`,
        );
        for (const recommendation of recommendations) {
          ctx.expectSeedShape(
            recommendation,
            'service-manifest',
            'ServerRecommendation',
            `the recommendation of ${describe(recommendation.server_name)}`,
          );
          ensure(
            recommendation.capability === query,
            `${String(recommendation.server_name)}: capability ${describe(recommendation.capability)}`,
          );
          ensure(
            typeof recommendation.score === 'number' && recommendation.score > 0 && recommendation.score <= 1,
            `${String(recommendation.server_name)}: score ${describe(recommendation.score)}`,
          );
          ensure(
            typeof recommendation.reason === 'string' && recommendation.reason !== '',
            `${String(recommendation.server_name)}: reason ${describe(recommendation.reason)}`,
          );
          ensure(
            recommendation.source === 'registry' || recommendation.source === 'peer',
            `${String(recommendation.server_name)}: source ${describe(recommendation.source)}`,
          );
        }
      },
    },
    {
      id: 'discovery/ranking',
      requirement: 'DISC-9',
      level: 'MUST',
      title: 'recommendations come best first, and match_confidence agrees with the score (high >= 0.6, medium >= 0.3)',
      async run(ctx) {
        const { recommendations } = await firstAnswer(ctx);
        if (recommendations.length === 0) return ctx.skip(`no recommendation for any of ${QUERIES.join(', ')}`);
        const scores = recommendations.map((entry) => (typeof entry.score === 'number' ? entry.score : Number.NaN));
        ensure(
          scores.every((score, index) => index === 0 || score <= (scores[index - 1] ?? Number.NaN)),
          `scores are not in descending order: ${describe(scores)}`,
        );
        for (const entry of recommendations) {
          const confidence = entry.match_confidence;
          ensure(
            typeof confidence === 'string' && CONFIDENCES.includes(confidence),
            `${String(entry.server_name)}: match_confidence ${describe(confidence)}`,
          );
          const floor = confidence === 'high' ? 0.6 : confidence === 'medium' ? 0.3 : 0;
          ensure(
            typeof entry.score === 'number' && entry.score >= floor,
            `${String(entry.server_name)}: ${confidence} with score ${describe(entry.score)}`,
          );
        }
      },
    },
    {
      id: 'discovery/max-results',
      requirement: 'DISC-11',
      level: 'MUST',
      title: 'at most max_results recommendations: the request value, lowered to the advertised cap',
      async run(ctx) {
        const { query } = await firstAnswer(ctx);
        const probe = await ctx.connect(withErrors(ctx, DISCOVERY_ID));
        const one = await recommend(ctx, probe, { capability_needed: query, max_results: 1 });
        ensure(one.recommendations.length <= 1, `max_results 1 answered ${String(one.recommendations.length)}`);
        const cap = ctx.settings.max_results;
        if (Number.isSafeInteger(cap)) {
          const many = await recommend(ctx, probe, { capability_needed: query, max_results: (cap as number) + 100 });
          ensure(
            many.recommendations.length <= (cap as number),
            `max_results above the cap answered ${String(many.recommendations.length)}, cap ${String(cap)}`,
          );
        }
      },
    },
    {
      id: 'discovery/invalid-query',
      requirement: 'DISC-3',
      level: 'MUST',
      title:
        'a missing, empty, blank or oversized capability_needed is refused with -32602 INVALID_INPUT pointing at it',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, DISCOVERY_ID));
        for (const params of [
          {},
          { capability_needed: '' },
          { capability_needed: '   ' },
          { capability_needed: 'x'.repeat(257) },
        ]) {
          const data = await expectMethodError(ctx, probe, method(ctx), params, {
            category: 'invalid_input',
            code: 'INVALID_INPUT',
          });
          const details = detailsOf(data);
          ensure(
            details.pointer === '/capability_needed',
            `${describe(params)}: details.pointer is ${describe(details.pointer)}`,
          );
        }
      },
    },
    {
      id: 'discovery/without-negotiation',
      requirement: 'DISC-2',
      level: 'MUST',
      title: 'recommend is answered whatever the client advertised',
      async run(ctx) {
        const { query } = await firstAnswer(ctx);
        const answer = await recommend(ctx, await ctx.connect({}), { capability_needed: query });
        ensure(answer.answer.capability_needed === query, `recommend answered ${describe(answer.answer)}`);
      },
    },
  ],
};
