import fc from 'fast-check';
import { ConfigurationError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import {
  defaultGrant,
  describeGrant,
  indexScopes,
  isScopeName,
  missingScopes,
  parseCheckRequest,
  parseNegotiationRequest,
  parseRequestMeta,
  parseSession,
  requiredScopesFor,
  sessionActive,
  sessionKey,
  settleDecision,
  touchSession,
  type SessionRecord,
} from './logic.js';
import { PERMISSIONS_ID } from './schema.js';

const scopes = indexScopes(
  [
    { name: 'tickets:read', description: 'read tickets', tools: ['get_ticket', 'list_tickets'], autoGrant: true },
    { name: 'tickets:delete', description: 'delete tickets', tools: [] },
  ],
  'test',
);

describe('scope declarations', () => {
  it('PERM-1: refuses malformed or duplicate scope definitions, naming them', () => {
    expect(() => indexScopes([{ name: 'has space', description: 'x', tools: [] }], 'w')).toThrow(/scopes\[0\]\.name/);
    expect(() => indexScopes([{ name: 'a', description: '', tools: [] }], 'w')).toThrow(/"a" needs a description/);
    expect(() =>
      indexScopes(
        [
          { name: 'a', description: 'x', tools: [] },
          { name: 'a', description: 'y', tools: [] },
        ],
        'w',
      ),
    ).toThrow(/declared twice/);
    expect(isScopeName('repo:admin_hook')).toBe(true);
    expect(isScopeName('a"b')).toBe(false);
  });

  it("PERM-2: required scopes merge the tool author's list with the scopes naming the tool", () => {
    expect(requiredScopesFor({ name: 'get_ticket' }, PERMISSIONS_ID, scopes)).toEqual(['tickets:read']);
    expect(
      requiredScopesFor(
        { name: 'purge', _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:delete', 'tickets:read'] } } },
        PERMISSIONS_ID,
        scopes,
      ),
    ).toEqual(['tickets:delete', 'tickets:read']);
    expect(requiredScopesFor({ name: 'ping' }, PERMISSIONS_ID, scopes)).toEqual([]);
  });

  it('PERM-2: an undeclared scope or a malformed entry is a ConfigurationError naming tool and scope', () => {
    const unknown = (): string[] =>
      requiredScopesFor(
        { name: 'purge', _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:nuke'] } } },
        PERMISSIONS_ID,
        scopes,
      );
    expect(unknown).toThrow(ConfigurationError);
    expect(unknown).toThrow(/tool "purge".*"tickets:nuke"/);
    expect(() =>
      requiredScopesFor({ name: 'purge', _meta: { [PERMISSIONS_ID]: ['tickets:read'] } }, PERMISSIONS_ID, scopes),
    ).toThrow(/tool "purge"/);
  });
});

describe('parsers never throw and name the field', () => {
  it('PERM-3: session meta', () => {
    expect(parseRequestMeta(undefined, PERMISSIONS_ID)).toEqual({ ok: true, value: undefined });
    expect(parseRequestMeta({ session_token: 'abc' }, PERMISSIONS_ID)).toEqual({ ok: true, value: 'abc' });
    expect(parseRequestMeta('abc', PERMISSIONS_ID)).toMatchObject({
      ok: false,
      field: PERMISSIONS_ID,
      pointer: '/_meta/io.github.mcp-ext~1permissions',
    });
    expect(parseRequestMeta({ session_token: '' }, PERMISSIONS_ID)).toMatchObject({
      ok: false,
      field: 'session_token',
    });
  });

  it('PERM-5 PERM-6: method params', () => {
    expect(parseCheckRequest({ tool: 't', scopes_held: [], _meta: { x: 1 } })).toEqual({
      ok: true,
      value: { tool: 't', scopes_held: [] },
    });
    expect(parseCheckRequest({ scopes_held: [] })).toMatchObject({ ok: false, field: 'tool', pointer: '/tool' });
    expect(parseNegotiationRequest({ requested_scopes: ['a'], ttl_seconds: 0 })).toMatchObject({
      ok: false,
      field: 'ttl_seconds',
    });
    expect(parseNegotiationRequest({})).toMatchObject({ ok: false, field: 'requested_scopes' });
  });

  it('PERM-3 PERM-5 PERM-6: arbitrary input gives a result, never an exception', () => {
    fc.assert(
      fc.property(fc.anything(), fc.dictionary(fc.string(), fc.anything()), (raw, params) => {
        const meta = parseRequestMeta(raw, PERMISSIONS_ID);
        const check = parseCheckRequest(params);
        const negotiation = parseNegotiationRequest(params);
        for (const parsed of [meta, check, negotiation]) {
          if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('grants', () => {
  it('PERM-6: the default policy grants auto_grant scopes and gives a reason for the rest', () => {
    const decision = defaultGrant(['tickets:read', 'tickets:delete'], scopes, 'https://auth.example.com/grant');
    expect(decision.granted).toEqual(['tickets:read']);
    expect(decision.denied).toEqual([
      { scope: 'tickets:delete', reason: expect.stringContaining('https://auth.example.com/grant') as string },
    ]);
  });

  it('PERM-6: settling a policy answer keeps granted within asked, and every asked scope is answered', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd')),
        fc.array(fc.constantFrom('a', 'b', 'c', 'e')),
        fc.array(fc.record({ scope: fc.constantFrom('a', 'b', 'e'), reason: fc.string() })),
        (asked, granted, denied) => {
          const settled = settleDecision(asked, { granted, denied });
          expect(settled.granted.every((scope) => asked.includes(scope))).toBe(true);
          const answered = [...settled.granted, ...settled.denied.map((entry) => entry.scope)].sort();
          expect(answered).toEqual([...asked].sort());
          expect(settled.denied.every((entry) => entry.reason.length > 0)).toBe(true);
        },
      ),
    );
  });

  it('PERM-8: missing scopes are the required ones not held', () => {
    expect(missingScopes(['a', 'b', 'c'], ['b'])).toEqual(['a', 'c']);
  });
});

describe('sessions', () => {
  const record: SessionRecord = { scopes: ['a'], expires_at: 10_000, last_used: 0, idle_seconds: 3 };

  it('PERM-11: a session is active until idle for its timeout or past expires_at, and use refreshes it', () => {
    expect(sessionActive(record, 2_999)).toBe(true);
    expect(sessionActive(record, 3_000)).toBe(false);
    const touched = touchSession(record, 2_000);
    expect(sessionActive(touched.record, 4_999)).toBe(true);
    expect(touched.ttlMs).toBe(3_000);
    expect(touchSession(record, 9_000).ttlMs).toBe(1_000);
    expect(sessionActive({ ...record, last_used: 9_999 }, 10_000)).toBe(false);
  });

  it('PERM-11: state machine — any sequence of uses keeps a session alive exactly while every gap is shorter than the timeout and expires_at is ahead', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 20 }), (gaps) => {
        let current: SessionRecord = record;
        let at = 0;
        let alive = true;
        for (const gap of gaps) {
          at += gap;
          const expected: boolean = alive && gap < 3_000 && at < 10_000;
          expect(sessionActive(current, at)).toBe(expected);
          alive = expected;
          if (alive) current = touchSession(current, at).record;
        }
      }),
    );
  });

  it('PERM-13: store keys are bound to the principal and never hold the token itself', () => {
    const key = sessionKey('permissions', 'alice', 'secret-token');
    expect(key).not.toContain('secret-token');
    expect(key).not.toBe(sessionKey('permissions', 'bob', 'secret-token'));
    expect(parseSession({ scopes: ['a'], expires_at: 1, last_used: 0, idle_seconds: 1 })).toEqual({
      scopes: ['a'],
      expires_at: 1,
      last_used: 0,
      idle_seconds: 1,
    });
    expect(parseSession({ scopes: 'a' })).toBeUndefined();
  });
});

describe('summaries', () => {
  it('PERM-15: puts the grant into sentences', () => {
    const definitions = [
      { name: 'tickets:read', description: 'read tickets', tools: [] },
      { name: 'tickets:edit', description: 'edit tickets', tools: [] },
      { name: 'tickets:delete', description: 'delete tickets', tools: [] },
    ];
    expect(describeGrant(definitions, ['tickets:read']).text).toBe(
      'Can read tickets. Cannot edit tickets (needs tickets:edit) and delete tickets (needs tickets:delete).',
    );
    expect(describeGrant(definitions, ['tickets:read', 'tickets:edit', 'tickets:delete']).text).toBe(
      'Can read tickets, edit tickets and delete tickets.',
    );
    expect(describeGrant([], []).text).toBe('This server declares no scopes.');
  });
});
