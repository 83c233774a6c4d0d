import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { route, ruleMatch } from './logic.js';

const rules = [
  { tool: 'get_recent_incidents', keywords: ['incident', 'outage'], from: ['search_issues'], reason: 'Filters by incident type and recency.' },
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

  it('matches keywords as whole words, in any case', () => {
    expect(ruleMatch({ tool: 't', keywords: ['incident'] }, 'An INCIDENT today')).toBeDefined();
    expect(ruleMatch({ tool: 't', keywords: ['incident'] }, 'incidentally')).toBeUndefined();
    expect(ruleMatch({ tool: 't', keywords: ['c++'] }, 'about c++ builds')).toBeDefined();
  });

  it('is pure and total: any intent gives a suggestion from the rules or none, the same twice', () => {
    const sticky = [{ tool: 'x', pattern: /a/g }];
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('search_issues', 'list_tickets', 'x'), (intent, tool) => {
        const first = route([...rules, ...sticky], intent, tool);
        expect(route([...rules, ...sticky], intent, tool)).toEqual(first);
        if (first) expect(['get_recent_incidents', 'export_report', 'x']).toContain(first.recommended_tool);
      }),
    );
  });
});
