import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSuggestion, codePointLength, parseIntentMeta, route, ruleMatch, truncateCodePoints } from './logic.js';
import { INTENT_ID } from './schema.js';

const rules = [
  {
    tool: 'get_recent_incidents',
    keywords: ['incident', 'outage'],
    from: ['search_issues'],
    reason: 'Filters by incident type and recency.',
  },
  { tool: 'export_report', pattern: /\b(csv|spreadsheet|export)\b/i },
];

describe('route (INT-4)', () => {
  it('suggests the first matching rule for another tool, with its reason', () => {
    expect(route(rules, "Find last Friday's deployment incident", 'search_issues')).toEqual({
      recommended_tool: 'get_recent_incidents',
      reason: 'Filters by incident type and recency.',
    });
    expect(route(rules, 'I need this as a CSV', 'list_tickets')?.recommended_tool).toBe('export_report');
    expect(route(rules, 'I need this as a CSV', 'list_tickets')?.reason).toMatch(/matches/);
  });

  it('never suggests the tool being called, nor a rule limited to other tools', () => {
    expect(route(rules, 'export everything', 'export_report')).toBeUndefined();
    expect(route(rules, 'incident report', 'list_tickets')).toBeUndefined();
  });

  it('matches keywords and phrases as whole words, in any case', () => {
    expect(ruleMatch({ tool: 't', keywords: ['incident'] }, 'An INCIDENT today')).toBeDefined();
    expect(ruleMatch({ tool: 't', keywords: ['incident'] }, 'incidentally')).toBeUndefined();
    expect(ruleMatch({ tool: 't', keywords: ['c++'] }, 'about c++ builds')).toBeDefined();
    expect(ruleMatch({ tool: 't', keywords: ['open tickets'] }, 'show me all open tickets')).toBeDefined();
  });

  it('is pure and total: any intent gives a suggestion from the rules or none, the same twice', () => {
    const sticky = [{ tool: 'x', pattern: /a/g }];
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('search_issues', 'list_tickets', 'x'), (intent, tool) => {
        const first = route([...rules, ...sticky], intent, tool);
        expect(route([...rules, ...sticky], intent, tool)).toEqual(first);
        if (first) {
          expect(['get_recent_incidents', 'export_report', 'x']).toContain(first.recommended_tool);
          expect(first.recommended_tool).not.toBe(tool);
        }
      }),
    );
  });
});

describe('parseIntentMeta (INT-3)', () => {
  it('reads the intent, ignoring unknown fields, and counts code points', () => {
    expect(parseIntentMeta(undefined, INTENT_ID, 10)).toEqual({ ok: true, intent: undefined });
    expect(parseIntentMeta({ intent: 'why', extra: 1 }, INTENT_ID, 10)).toEqual({ ok: true, intent: 'why' });
    expect(parseIntentMeta({ intent: '😀'.repeat(10) }, INTENT_ID, 10)).toEqual({ ok: true, intent: '😀'.repeat(10) });
  });

  it('names the field and its pointer relative to params', () => {
    expect(parseIntentMeta('why', INTENT_ID, 10)).toMatchObject({
      ok: false,
      field: INTENT_ID,
      pointer: '/_meta/io.github.mcp-ext~1intent',
    });
    expect(parseIntentMeta({ intent: '  ' }, INTENT_ID, 10)).toMatchObject({
      ok: false,
      field: 'intent',
      pointer: '/_meta/io.github.mcp-ext~1intent/intent',
    });
    expect(parseIntentMeta({ intent: 'x'.repeat(11) }, INTENT_ID, 10)).toMatchObject({
      ok: false,
      field: 'intent',
      message: expect.stringMatching(/11 characters/) as unknown,
    });
  });

  it('never throws, and accepts exactly the non-blank strings within the limit', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ intent: fc.string({ unit: 'grapheme', maxLength: 30 }) })),
        fc.integer({ min: 1, max: 20 }),
        (raw, max) => {
          const parsed = parseIntentMeta(raw, INTENT_ID, max);
          const intent =
            typeof raw === 'object' && raw !== null && !Array.isArray(raw)
              ? (raw as { intent?: unknown }).intent
              : undefined;
          const acceptable =
            raw === undefined || (typeof intent === 'string' && intent.trim() !== '' && codePointLength(intent) <= max);
          expect(parsed.ok).toBe(acceptable);
        },
      ),
    );
  });
});

describe('checkSuggestion (INT-9)', () => {
  it('keeps a well-formed suggestion for another tool, drops one for the called tool, and refuses malformed ones', () => {
    expect(checkSuggestion({ recommendedTool: 'b', reason: 'r' }, 'a')).toEqual({
      ok: true,
      suggestion: { recommended_tool: 'b', reason: 'r' },
    });
    expect(checkSuggestion({ recommendedTool: 'b', reason: 'r', extra: 1 }, 'a')).toEqual({
      ok: true,
      suggestion: { recommended_tool: 'b', reason: 'r' },
    });
    expect(checkSuggestion({ recommendedTool: 'a', reason: 'r' }, 'a')).toEqual({ ok: true, suggestion: undefined });
    expect(checkSuggestion(undefined, 'a')).toEqual({ ok: true, suggestion: undefined });
    for (const bad of [
      'b',
      [],
      { recommendedTool: '', reason: 'r' },
      { recommendedTool: 'b' },
      { recommendedTool: 'b', reason: 'x'.repeat(1001) },
      { recommendedTool: 'x'.repeat(129), reason: '' },
    ]) {
      expect(checkSuggestion(bad, 'a').ok).toBe(false);
    }
  });
});

describe('truncateCodePoints', () => {
  it('never splits a surrogate pair and keeps at most max code points', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 0, max: 40 }), (text, max) => {
        const cut = truncateCodePoints(text, max);
        expect(codePointLength(cut)).toBe(Math.min(max, codePointLength(text)));
        expect(text.startsWith(cut)).toBe(true);
        expect(cut).not.toMatch(/[\uD800-\uDBFF]$/);
      }),
    );
  });
});
