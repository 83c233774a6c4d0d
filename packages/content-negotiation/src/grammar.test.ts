import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BOOLEAN_FEATURES,
  excludedValues,
  featureValue,
  formatFeatureTag,
  hasFeature,
  mergeFeatures,
  parseFeatures,
  parseFeatureTag,
  serializeFeatures,
} from './grammar.js';
import { MAX_FEATURE_LENGTH, MAX_FEATURES } from './schema.js';

const tagsOf = (input: unknown): string[] => serializeFeatures(parseFeatures(input).tags);

// Inputs close to the grammar find more interesting cases than uniform strings.
const NAMES = [
  'agent',
  'human',
  'mcp-capable',
  'interactive',
  'sampling',
  'elicitation',
  'roots',
  'tasks',
  'format',
  'verbosity',
  'x-theme',
  'X-Theme',
  'future-tag',
  'x-',
];
const VALUES = [
  'json',
  'JSON',
  'text',
  'markdown',
  'xml',
  'compact',
  'standard',
  'verbose',
  'dark',
  'Dark',
  '=json',
  'a b',
  '',
];
const nearTag = fc.oneof(
  fc.tuple(fc.constantFrom('', '!'), fc.constantFrom(...NAMES)).map(([bang, name]) => `${bang}${name}`),
  fc
    .tuple(fc.constantFrom(...NAMES), fc.constantFrom('=', '!=', '==', '!'), fc.constantFrom(...VALUES))
    .map(([n, op, v]) => `${n}${op}${v}`),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const anyInput = fc.oneof(
  fc.array(nearTag, { maxLength: 50 }),
  fc.array(fc.oneof(nearTag, fc.anything()), { maxLength: 40 }),
  fc.anything(),
);

describe('parseFeatures: properties', () => {
  it('never throws, on anything (CN-4)', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const parsed = parseFeatures(input);
        expect(parsed.tags.length).toBeLessThanOrEqual(MAX_FEATURES);
        for (const tag of serializeFeatures(parsed.tags)) expect(tag.length).toBeLessThanOrEqual(MAX_FEATURE_LENGTH);
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent on its own output: parse(serialize(parse(x))) equals parse(x), with no warnings (CN-5)', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const once = parseFeatures(input);
        const twice = parseFeatures(serializeFeatures(once.tags));
        expect(twice.tags).toEqual(once.tags);
        expect(twice.warnings).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('does not depend on the order tags are listed in, beyond the order of the output (CN-6)', () => {
    fc.assert(
      fc.property(
        fc
          .array(nearTag, { maxLength: MAX_FEATURES })
          .chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))),
        ([list, shuffled]) => {
          expect(tagsOf(shuffled).sort()).toEqual(tagsOf(list).sort());
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps every well-formed tag unless a conflict rule names it (nothing is lost silently)', () => {
    fc.assert(
      fc.property(fc.array(nearTag, { maxLength: MAX_FEATURES }), (list) => {
        const parsed = parseFeatures(list);
        const accepted = new Set(
          list.flatMap((raw) => {
            const check = parseFeatureTag(raw);
            return check.ok ? [formatFeatureTag(check.tag)] : [];
          }),
        );
        const conflicts = parsed.warnings.filter((warning) => warning.index === -1);
        const kept = new Set(serializeFeatures(parsed.tags));
        for (const tag of accepted) {
          if (!kept.has(tag)) expect(conflicts.some((warning) => warning.tag.split(' ').includes(tag))).toBe(true);
        }
        for (const tag of kept) expect(accepted.has(tag)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseFeatureTag: names Object.prototype carries', () => {
  it.each(['constructor', 'constructor=x', 'toString', 'hasOwnProperty=1', 'valueOf'])(
    'reads %j as an unknown tag, without throwing',
    (input) => {
      const check = parseFeatureTag(input);
      expect(check.ok).toBe(true);
      expect(check.ok && formatFeatureTag(check.tag)).toBe(input.toLowerCase());
    },
  );
});

describe('parseFeatureTag: the grammar (CN-2, CN-3)', () => {
  it.each([
    ['agent', 'agent'],
    ['!interactive', '!interactive'],
    ['format=json', 'format=json'],
    ['FORMAT=JSON', 'format=json'],
    ['Verbosity=Compact', 'verbosity=compact'],
    ['format!=markdown', 'format!=markdown'],
    ['x-theme=Dark', 'x-theme=Dark'],
    ['X-Locale=de-CH', 'x-locale=de-CH'],
    ['!x-beta', '!x-beta'],
    ['future-tag', 'future-tag'],
    ['future.tag!=v1.2', 'future.tag!=v1.2'],
    ['x-accept=text/csv', 'x-accept=text/csv'],
  ])('reads %j as %j', (input, canonical) => {
    const check = parseFeatureTag(input);
    expect(check.ok && formatFeatureTag(check.tag)).toBe(canonical);
  });

  it.each([
    ['@#$%', /grammar/],
    ['format==json', /grammar/],
    ['', /empty/],
    [' agent', /grammar/],
    ['agent ', /grammar/],
    ['!', /grammar/],
    ['=json', /grammar/],
    ['!format=json', /grammar/],
    ['1agent', /grammar/],
    ['format', /needs a value/],
    ['!format', /needs a value/],
    ['format=xml', /must be one of json, text, markdown/],
    ['verbosity=loud', /must be one of compact, standard, verbose/],
    ['agent=yes', /takes no value/],
    ['interactive!=no', /takes no value/],
    ['x-', /vendor tag needs a name/],
    ['x-a=', /grammar/],
    [`x-${'a'.repeat(MAX_FEATURE_LENGTH)}`, /longer than 64/],
    ['agént', /grammar/],
  ])('drops %j (%s)', (input, reason) => {
    const check = parseFeatureTag(input);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it('refuses non-strings', () => {
    for (const value of [null, 1, {}, [], true, undefined])
      expect(parseFeatureTag(value)).toEqual({ ok: false, reason: 'a feature tag must be a string' });
  });

  it('knows every registry tag of the proposal', () => {
    expect([...BOOLEAN_FEATURES]).toEqual([
      'agent',
      'human',
      'mcp-capable',
      'interactive',
      'sampling',
      'elicitation',
      'roots',
      'tasks',
    ]);
    for (const tag of [
      ...BOOLEAN_FEATURES,
      'verbosity=compact',
      'verbosity=standard',
      'verbosity=verbose',
      'format=json',
      'format=text',
      'format=markdown',
    ]) {
      expect(parseFeatureTag(tag).ok).toBe(true);
    }
  });
});

describe('parseFeatures: bounds and malformed input (CN-3, CN-4)', () => {
  it("drops the proposal's malformed tags with a warning and keeps the rest", () => {
    const parsed = parseFeatures(['agent', '@#$%', 'format==json', 'format=json']);
    expect(serializeFeatures(parsed.tags)).toEqual(['agent', 'format=json']);
    expect(parsed.warnings.map((warning) => [warning.index, warning.tag])).toEqual([
      [1, '@#$%'],
      [2, 'format==json'],
    ]);
  });

  it(`reads at most ${MAX_FEATURES} tags and says so`, () => {
    const many = Array.from({ length: MAX_FEATURES + 10 }, (_, index) => `x-tag${index}`);
    const parsed = parseFeatures(many);
    expect(parsed.tags).toHaveLength(MAX_FEATURES);
    expect(parsed.warnings).toEqual([
      { index: MAX_FEATURES, tag: '10 more', reason: `only the first ${MAX_FEATURES} feature tags are read` },
    ]);
  });

  it('treats a non-array as no features, with a warning; undefined silently', () => {
    expect(parseFeatures('agent,format=json')).toMatchObject({
      tags: [],
      warnings: [{ reason: 'features must be an array of strings' }],
    });
    expect(parseFeatures(undefined)).toEqual({ tags: [], warnings: [] });
  });

  it('shortens hostile input in warnings', () => {
    const parsed = parseFeatures(['!'.repeat(10_000)]);
    expect(parsed.warnings[0]?.tag.length).toBeLessThanOrEqual(80);
  });

  it('collapses duplicates, case-insensitively for names and registry values', () => {
    expect(tagsOf(['agent', 'AGENT', 'Format=JSON', 'format=json'])).toEqual(['agent', 'format=json']);
  });
});

describe('parseFeatures: conflict rules (CN-6)', () => {
  it.each([
    [['agent', 'human'], [], 'agent and human cancel out'],
    [['agent', 'human', 'format=json'], ['format=json'], 'the rest stays'],
    [['format=json', 'format=markdown'], [], 'two format values cancel out'],
    [['format=json', 'format=markdown', 'format!=text'], ['format!=text'], 'exclusions stay'],
    [['interactive', '!interactive'], [], 'declared and negated cancel out'],
    [['!interactive', 'interactive', 'sampling'], ['sampling'], 'order does not matter'],
    [['format=json', 'format!=json'], [], 'equal and different cancel out'],
    [['format=json', 'format!=markdown'], ['format=json', 'format!=markdown'], 'consistent'],
    [['!x-beta', 'x-beta=2'], [], 'negated yet valued cancel out'],
    [['x-beta', 'x-beta=2'], ['x-beta', 'x-beta=2'], 'declared with a value is consistent'],
    [['agent', '!agent', 'human'], ['human'], 'a cancelled agent does not cancel human'],
    [['!agent', 'human'], ['!agent', 'human'], 'negations never conflict with the other audience'],
    [['x-theme=Dark', 'x-theme=dark'], [], 'vendor values are case-sensitive'],
  ])('%j -> %j (%s)', (input, expected) => {
    const parsed = parseFeatures(input);
    expect(serializeFeatures(parsed.tags)).toEqual(expected);
    if (expected.length < input.length && new Set(input).size === input.length)
      expect(parsed.warnings.length).toBeGreaterThan(0);
  });
});

describe('reading tags', () => {
  const tags = parseFeatures(['agent', '!interactive', 'format=json', 'verbosity!=verbose', 'x-theme=dark']).tags;

  it('answers presence as true, negation as false, silence as undefined', () => {
    expect(hasFeature(tags, 'agent')).toBe(true);
    expect(hasFeature(tags, 'AGENT')).toBe(true);
    expect(hasFeature(tags, 'interactive')).toBe(false);
    expect(hasFeature(tags, 'sampling')).toBeUndefined();
    expect(hasFeature(tags, 'x-theme')).toBe(true);
  });

  it('reads values and exclusions', () => {
    expect(featureValue(tags, 'format')).toBe('json');
    expect(featureValue(tags, 'verbosity')).toBeUndefined();
    expect(excludedValues(tags, 'verbosity')).toEqual(['verbose']);
  });

  it('merges an override by dimension; agent and human are one (CN-9)', () => {
    const base = parseFeatures(['agent', 'format=json', 'sampling']).tags;
    expect(serializeFeatures(mergeFeatures(base, parseFeatures(['format=markdown']).tags))).toEqual([
      'agent',
      'sampling',
      'format=markdown',
    ]);
    expect(serializeFeatures(mergeFeatures(base, parseFeatures(['human']).tags))).toEqual([
      'format=json',
      'sampling',
      'human',
    ]);
    expect(serializeFeatures(mergeFeatures(base, []))).toEqual(['agent', 'format=json', 'sampling']);
  });
});
