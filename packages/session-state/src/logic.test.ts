import { withResultMeta } from '@ext/core/kit';
import { ConfigurationError, ExtensionError, type ToolResult } from '@ext/core';
import { seedValidators } from '@ext/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSlot, sessionState, setSlot } from './locals.js';
import {
  encodeState,
  invalidTokenError,
  isSessionStateRejected,
  statePointer as metaPointer,
  parseRequestMeta,
  readResultMeta,
  RETRY_WITHOUT_TOKEN_SUGGESTION,
  type SessionStateFailureReason,
} from './logic.js';
import { SESSION_STATE_ID, SESSION_STATE_INVALID } from './schema.js';
import { sealedLength, TOKEN_FAILURE_REASONS } from './token.js';

const seeds = seedValidators();
const errorSchema = seeds.check('error');

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the request entry (SS-2, SS-8)', () => {
  it('SS-2: absent means no token; a well-formed entry yields its token', () => {
    expect(parseRequestMeta(undefined)).toEqual({ ok: true, token: undefined });
    expect(parseRequestMeta({ session_state: 'abc_-9' })).toEqual({ ok: true, token: 'abc_-9' });
    expect(parseRequestMeta({ session_state: 'abc', future_field: 1 })).toEqual({ ok: true, token: 'abc' });
  });

  it('SS-8: a malformed entry names the field and its JSON Pointer', () => {
    expect(parseRequestMeta('token')).toMatchObject({
      ok: false,
      field: SESSION_STATE_ID,
      pointer: '/_meta/io.github.mcp-ext~1session-state',
    });
    for (const entry of [
      {},
      { session_state: 42 },
      { session_state: '' },
      { session_state: 'has space' },
      { session_state: 'a=' },
    ]) {
      expect(parseRequestMeta(entry)).toMatchObject({
        ok: false,
        field: 'session_state',
        pointer: '/_meta/io.github.mcp-ext~1session-state/session_state',
      });
    }
  });

  it('SS-8: never throws, whatever arrives', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const parsed = parseRequestMeta(raw);
        if (parsed.ok) expect(parsed.token === undefined || typeof parsed.token === 'string').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('escapes the identifier in pointers (RFC 6901)', () => {
    expect(metaPointer('session_state', 'a/b~c')).toBe('/_meta/a~1b~0c/session_state');
  });
});

describe('the refusal (SS-8, SS-9)', () => {
  it.each([...TOKEN_FAILURE_REASONS, 'invalid_state'] as SessionStateFailureReason[])(
    'SS-8 SS-9: %s is invalid_input, suggests retrying without a token and is a valid seed error',
    (reason) => {
      const error = invalidTokenError(reason, { maxTokenBytes: 1000 });
      expect(error.category).toBe('invalid_input');
      expect(error.code).toBe(SESSION_STATE_INVALID);
      expect(error.suggestion).toBe(RETRY_WITHOUT_TOKEN_SUGGESTION);
      expect(error.details).toEqual({
        reason,
        field: 'session_state',
        pointer: '/_meta/io.github.mcp-ext~1session-state/session_state',
      });
      const check = errorSchema(error.toStructured());
      expect(check.errors).toBe('');
    },
  );

  it('SS-8: the too_large message names the limit', () => {
    expect(invalidTokenError('too_large', { maxTokenBytes: 4096 }).message).toContain('4096 bytes');
  });
});

describe('state values', () => {
  it('encodes JSON canonically and refuses what JSON cannot carry', () => {
    expect(encodeState({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [undefined, () => 1, Symbol('s'), 10n, Number.NaN, { n: Infinity }, cyclic]) {
      const error = thrown(() => encodeState(value));
      expect(ExtensionError.isInstance(error)).toBe(true);
      expect((error as ExtensionError).code).toBe('SESSION_STATE_INVALID_VALUE');
    }
  });
});

describe('the per-call handle (SS-12)', () => {
  const base = { enabled: true, maxTokenBytes: 256, sealingKeyId: 'k1' };

  it('SS-12: set() refuses at once, naming the limit, when the sealed token would not fit', () => {
    const slot = createSlot(base);
    slot.handle.set({ small: true });
    // The largest string that still fits: sealed size of `"xxx..."` under key id k1.
    let fits = 0;
    while (sealedLength('k1', fits + 3) <= 256) fits += 1;
    expect(() => {
      slot.handle.set('x'.repeat(fits));
    }).not.toThrow();
    const error = thrown(() => {
      slot.handle.set('x'.repeat(fits + 1));
    });
    expect(ExtensionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'SESSION_STATE_TOO_LARGE',
      category: 'permanent',
      details: { limit_bytes: 256 },
    });
    expect((error as Error).message).toContain('the limit is 256 bytes');
    expect(errorSchema((error as ExtensionError).toStructured()).errors).toBe('');
    // The refused value did not replace what was set before.
    expect(slot.handle.get()).toBe('x'.repeat(fits));
  });

  it('get() starts from the incoming state and hands out copies', () => {
    const slot = createSlot({ ...base, incoming: { plaintext: '{"items":["a"]}', expiresAt: 5000 } });
    const first = slot.handle.get() as { items: string[] };
    first.items.push('mutated');
    expect(slot.handle.get()).toEqual({ items: ['a'] });
    expect(slot.handle.expiresAt).toEqual(new Date(5000));
    expect(slot.outcome()).toEqual({ kind: 'unchanged', plaintext: '{"items":["a"]}' });
  });

  it('reports what the handler did: set, then cleared', () => {
    const slot = createSlot(base);
    expect(slot.outcome()).toEqual({ kind: 'unchanged', plaintext: undefined });
    slot.handle.set([1, 2]);
    expect(slot.outcome()).toEqual({ kind: 'set', plaintext: '[1,2]' });
    slot.handle.clear();
    expect(slot.outcome()).toEqual({ kind: 'cleared' });
    expect(slot.handle.get()).toBeUndefined();
  });

  it('checks set() against the server schema', () => {
    const slot = createSlot({
      ...base,
      check: (value) => (typeof value === 'number' ? undefined : '/ must be a number'),
    });
    slot.handle.set(3);
    expect(
      thrown(() => {
        slot.handle.set('three');
      }),
    ).toMatchObject({ code: 'SESSION_STATE_INVALID_VALUE' });
  });

  it('sessionState(ctx) throws a ConfigurationError when the server half is not composed', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    const error = thrown(() => sessionState(ctx));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('sessionStateServer');
    const slot = createSlot(base);
    setSlot(ctx, slot);
    expect(sessionState<number>(ctx)).toBe(slot.handle);
  });
});

describe('the result entry (SS-4, SS-5, SS-15)', () => {
  const result: ToolResult = { content: [] };

  it('SS-4 SS-5: reads well-formed entries only', () => {
    const token = { session_state: 'abc', expires_at: '2030-01-01T00:00:00.000Z', state_changed: true };
    expect(readResultMeta({ ...result, _meta: { [SESSION_STATE_ID]: token } })).toEqual(token);
    expect(readResultMeta({ _meta: { [SESSION_STATE_ID]: { state_changed: true } } })).toEqual({ state_changed: true });
    expect(
      readResultMeta({ _meta: { [SESSION_STATE_ID]: { session_state: 'abc', state_changed: true } } }),
    ).toBeUndefined();
    expect(
      readResultMeta({
        _meta: { [SESSION_STATE_ID]: { session_state: 'abc', expires_at: 'soon', state_changed: true } },
      }),
    ).toBeUndefined();
    expect(
      readResultMeta({ _meta: { [SESSION_STATE_ID]: { session_state: 7, state_changed: true } } }),
    ).toBeUndefined();
    expect(readResultMeta({ _meta: { [SESSION_STATE_ID]: 'abc' } })).toBeUndefined();
    expect(readResultMeta(null)).toBeUndefined();
  });

  it('SS-15: recognises the refusal through the structured error of any errors generation', () => {
    const refused = (key: string, code: string, isError = true): unknown => ({
      content: [],
      isError,
      _meta: { [key]: { code } },
    });
    expect(isSessionStateRejected(refused('io.github.mcp-ext/errors', SESSION_STATE_INVALID))).toBe(true);
    expect(isSessionStateRejected(refused('io.github.mcp-ext/errors-v2', SESSION_STATE_INVALID))).toBe(true);
    expect(isSessionStateRejected(refused('io.github.mcp-ext/errors', 'OTHER'))).toBe(false);
    expect(isSessionStateRejected(refused('io.github.mcp-ext/errors', SESSION_STATE_INVALID, false))).toBe(false);
    expect(isSessionStateRejected(refused('example.com/errors', SESSION_STATE_INVALID))).toBe(false);
    expect(isSessionStateRejected({ content: [], isError: true })).toBe(false);
  });

  it('SS-17: sets its own entry and strips one it did not write', () => {
    const withOther: ToolResult = { content: [], _meta: { other: 1, [SESSION_STATE_ID]: { forged: true } } };
    expect(withResultMeta(withOther, SESSION_STATE_ID, undefined)._meta).toEqual({ other: 1 });
    expect(withResultMeta({ content: [], _meta: { [SESSION_STATE_ID]: {} } }, SESSION_STATE_ID, undefined)).toEqual({
      content: [],
    });
    expect(withResultMeta(result, SESSION_STATE_ID, { state_changed: true })._meta).toEqual({
      [SESSION_STATE_ID]: { state_changed: true },
    });
    expect(withResultMeta(result, SESSION_STATE_ID, undefined)).toBe(result);
  });
});
