import { canonicalHash } from '@ext/core/kit';
import { ConfigurationError, ExtensionError, type ToolInfo } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confirmationElicitationHandler, getConfirmationRequired, parseConfirmationElicitation } from './client.js';
import {
  callHash,
  confirmationMessage,
  fillMessage,
  isTokenShaped,
  MAX_PLACEHOLDER_LENGTH,
  readToolGate,
} from './logic.js';
import {
  answersQuestion,
  checkGrant,
  checkToken,
  type GrantRecord,
  parseQuestionRecord,
  questionKey,
  type TokenRecord,
} from './records.js';
import { refusalError } from './refusals.js';
import { CONFIRMATION_ID } from './schema.js';
import { confirmationElicitation, confirmationServer } from './server.js';

const tool = (meta: unknown, annotations?: ToolInfo['annotations']): ToolInfo => ({
  name: 'drop_db',
  annotations,
  _meta: { [CONFIRMATION_ID]: meta },
});

describe('readToolGate', () => {
  it('CONF-1: no entry means no gate', () => {
    expect(readToolGate({ name: 'x' }, CONFIRMATION_ID)).toBeUndefined();
  });

  it('CONF-1 CONF-2: defaults follow the seed (safe) and destructive implies a gate', () => {
    expect(readToolGate(tool({}), CONFIRMATION_ID)).toEqual({
      requiresConfirmation: false,
      riskLevel: 'safe',
      message: undefined,
    });
    expect(readToolGate(tool({ requires_confirmation: true }), CONFIRMATION_ID)?.riskLevel).toBe('destructive');
    expect(readToolGate(tool({ risk_level: 'destructive' }), CONFIRMATION_ID)?.requiresConfirmation).toBe(true);
    expect(readToolGate(tool({ risk_level: 'reversible' }), CONFIRMATION_ID)?.requiresConfirmation).toBe(false);
  });

  it('CONF-2 CONF-3: contradictions are configuration errors naming the tool', () => {
    const bad = [
      tool({ risk_level: 'destructive', requires_confirmation: false }),
      tool({ risk_level: 'destructive' }, { destructiveHint: false }),
      tool({ risk_level: 'reversible', requires_confirmation: true }, { destructiveHint: true }),
      tool({ risk_level: 'fatal' }),
      tool({ requires_confirmation: 'yes' }),
      tool({ confirmation_message: '' }),
      tool('destructive'),
    ];
    for (const info of bad) {
      const error = (() => {
        try {
          readToolGate(info, CONFIRMATION_ID);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('drop_db');
    }
  });

  it('CONF-3: the server sets destructiveHint from the risk level', () => {
    const server = confirmationServer();
    expect(server.toolAnnotations?.(tool({ risk_level: 'destructive' }))).toEqual({ destructiveHint: true });
    expect(server.toolAnnotations?.(tool({ risk_level: 'reversible', requires_confirmation: true }))).toEqual({
      destructiveHint: false,
    });
    expect(server.toolAnnotations?.({ name: 'plain' })).toBeUndefined();
  });
});

describe('fillMessage', () => {
  it('CONF-4: fills known placeholders and leaves unknown ones visible', () => {
    expect(fillMessage('Delete {repo} owned by {owner}?', { repo: 'prod', count: 2 })).toBe(
      'Delete prod owned by {owner}?',
    );
    expect(fillMessage('Move {n} items {tags}', { n: 3, tags: ['a', 'b'] })).toBe('Move 3 items ["a","b"]');
  });

  it('CONF-4: a placeholder never renders longer than the cap, whatever the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const out = fillMessage('{v}', { v: value });
        expect(out.length).toBeLessThanOrEqual(MAX_PLACEHOLDER_LENGTH);
      }),
    );
  });

  it('CONF-4: text without placeholders is returned unchanged', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/\{[A-Za-z_]/.test(text)),
        fc.dictionary(fc.string(), fc.string()),
        (text, args) => {
          expect(fillMessage(text, args)).toBe(text);
        },
      ),
    );
  });

  it('CONF-4: a tool without a template gets a generated message naming it and its risk', () => {
    const gate = readToolGate(tool({ risk_level: 'destructive' }), CONFIRMATION_ID);
    if (gate === undefined) throw new Error('expected a gate');
    expect(confirmationMessage({ name: 'drop_db' }, gate, { db: 'main' })).toBe(
      'Allow the destructive operation "drop_db" with {"db":"main"}?',
    );
  });
});

const record = (over: Partial<TokenRecord> = {}): TokenRecord => ({
  v: 1,
  tool: 'drop_db',
  args_hash: canonicalHash({ db: 'test' }),
  principal: 'alice',
  message: 'Drop test?',
  risk_level: 'destructive',
  issued_at: 0,
  expires_at: 300_000,
  state: 'pending',
  ...over,
});

describe('checkToken', () => {
  const call = { tool: 'drop_db', argsHash: canonicalHash({ db: 'test' }) };

  it('CONF-9: accepts the bound call before expiry', () => {
    expect(checkToken(record(), { principal: 'alice', now: 299_999, call })).toBeUndefined();
    expect(checkToken(record({ state: 'approved' }), { principal: 'alice', now: 1, call })).toBeUndefined();
  });

  it('CONF-9: each failure has its own code, in a fixed order', () => {
    expect(checkToken(undefined, { principal: 'alice', now: 0, call })).toBe('CONFIRMATION_TOKEN_INVALID');
    expect(checkToken(record({ state: 'used' }), { principal: 'bob', now: 999_999, call })).toBe(
      'CONFIRMATION_PRINCIPAL_MISMATCH',
    );
    expect(checkToken(record({ state: 'used' }), { principal: 'alice', now: 999_999, call })).toBe(
      'CONFIRMATION_TOKEN_REPLAYED',
    );
    expect(checkToken(record(), { principal: 'alice', now: 300_000, call })).toBe('CONFIRMATION_TOKEN_EXPIRED');
    expect(checkToken(record(), { principal: 'alice', now: 1, call: { ...call, tool: 'other' } })).toBe(
      'CONFIRMATION_ARGUMENTS_MISMATCH',
    );
  });

  it('CONF-9: arguments are bound canonically: key order never matters, any other value does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()), (a, b) => {
        const bound = record({ args_hash: canonicalHash(a) });
        const reordered = Object.fromEntries(Object.entries(a).reverse());
        expect(
          checkToken(bound, {
            principal: 'alice',
            now: 1,
            call: { tool: 'drop_db', argsHash: canonicalHash(reordered) },
          }),
        ).toBeUndefined();
        const verdict = checkToken(bound, {
          principal: 'alice',
          now: 1,
          call: { tool: 'drop_db', argsHash: canonicalHash(b) },
        });
        expect(verdict === undefined).toBe(canonicalHash(a) === canonicalHash(b));
      }),
    );
  });

  it('CONF-9: every refusal becomes a structured error with a suggestion', () => {
    const codes = [
      'CONFIRMATION_TOKEN_INVALID',
      'CONFIRMATION_PRINCIPAL_MISMATCH',
      'CONFIRMATION_TOKEN_REPLAYED',
      'CONFIRMATION_TOKEN_EXPIRED',
      'CONFIRMATION_ARGUMENTS_MISMATCH',
      'CONFIRMATION_GRANT_INVALID',
      'CONFIRMATION_GRANT_EXPIRED',
      'CONFIRMATION_GRANT_TOOL_MISMATCH',
      'CONFIRMATION_GRANT_EXHAUSTED',
    ] as const;
    for (const code of codes) {
      const error = refusalError(code);
      expect(ExtensionError.isInstance(error)).toBe(true);
      expect(error.code).toBe(code);
      expect(error.suggestion).toBeTruthy();
    }
  });
});

describe('checkGrant', () => {
  const grant: GrantRecord = {
    v: 1,
    tool: 'archive',
    principal: 'alice',
    max_calls: 3,
    issued_at: 0,
    expires_at: 60_000,
  };
  it('CONF-15: bound to principal, tool and time', () => {
    const use = { principal: 'alice', tool: 'archive', toolDigest: 'd1', now: 0 };
    expect(checkGrant(grant, { ...use, now: 59_999 })).toBeUndefined();
    expect(checkGrant(undefined, use)).toBe('CONFIRMATION_GRANT_INVALID');
    expect(checkGrant(grant, { ...use, principal: 'bob' })).toBe('CONFIRMATION_PRINCIPAL_MISMATCH');
    expect(checkGrant(grant, { ...use, now: 60_000 })).toBe('CONFIRMATION_GRANT_EXPIRED');
    expect(checkGrant(grant, { ...use, tool: 'drop' })).toBe('CONFIRMATION_GRANT_TOOL_MISMATCH');
  });

  it('CONF-21: a grant given for one definition of the tool never covers another', () => {
    const bound: GrantRecord = { ...grant, tool_digest: 'd1' };
    const use = { principal: 'alice', tool: 'archive', toolDigest: 'd1', now: 0 };
    expect(checkGrant(bound, use)).toBeUndefined();
    expect(checkGrant(bound, { ...use, toolDigest: 'd2' })).toBe('CONFIRMATION_GRANT_TOOL_MISMATCH');
  });

  it('CONF-21: a call is bound to the tool as defined now, not only to its name and arguments', () => {
    const tool = { name: 'archive', description: 'Archive a ticket', inputJsonSchema: { type: 'object' } };
    const args = { id: 'T-1' };
    expect(callHash(tool, args)).toBe(callHash({ ...tool }, { id: 'T-1' }));
    expect(callHash({ ...tool, description: 'Delete every ticket' }, args)).not.toBe(callHash(tool, args));
    expect(callHash({ ...tool, annotations: { destructiveHint: true } }, args)).not.toBe(callHash(tool, args));
    expect(callHash({ ...tool, inputJsonSchema: { type: 'object', properties: {} } }, args)).not.toBe(
      callHash(tool, args),
    );
    expect(callHash(tool, { id: 'T-2' })).not.toBe(callHash(tool, args));
  });
});

describe('client parsing', () => {
  it('CONF-8: token shape and confirmation_required reading are strict', () => {
    expect(isTokenShaped('A'.repeat(43))).toBe(true);
    expect(isTokenShaped('A'.repeat(42))).toBe(false);
    const meta = {
      status: 'confirmation_required',
      confirmation_token: 'A'.repeat(43),
      tool: 't',
      message: 'm',
      risk_level: 'destructive',
      expires_at: '2026-01-01T00:00:00.000Z',
    };
    expect(getConfirmationRequired({ content: [], _meta: { [CONFIRMATION_ID]: meta } })).toEqual(meta);
    expect(
      getConfirmationRequired({ content: [], _meta: { [CONFIRMATION_ID]: { ...meta, risk_level: 'meh' } } }),
    ).toBeUndefined();
    expect(getConfirmationRequired({ content: [] })).toBeUndefined();
  });

  it('CONF-6 CONF-18: the elicitation the server sends round-trips through the client handler', async () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.constantFrom('safe', 'reversible', 'destructive' as const),
        (message, risk) => {
          const parsed = parseConfirmationElicitation(confirmationElicitation('drop_db', message, risk));
          expect(parsed).toEqual({ tool: 'drop_db', arguments: {}, message, riskLevel: risk });
        },
      ),
    );
    const handler = confirmationElicitationHandler(() => Promise.resolve(false));
    expect(await handler(confirmationElicitation('drop_db', 'Drop?', 'destructive'))).toEqual({ action: 'decline' });
    const other = {
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    expect(await handler(other)).toEqual({ action: 'decline' });
    const fallback = confirmationElicitationHandler(
      () => Promise.resolve(true),
      () => Promise.resolve({ action: 'accept', content: { name: 'Ada' } }),
    );
    expect(await fallback(other)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(await fallback(confirmationElicitation('drop_db', 'Drop?', 'destructive'))).toEqual({
      action: 'accept',
      content: { confirm: true },
    });
  });
});

describe('confirmationServer options', () => {
  it('rejects invalid options with a message naming the option', () => {
    expect(() => confirmationServer({ tokenTtlSeconds: 0 })).toThrow(/tokenTtlSeconds/);
    expect(() => confirmationServer({ prefer: 'never' as 'token' })).toThrow(/prefer/);
    expect(() => confirmationServer({ grants: { maxCalls: -1 } })).toThrow(/grants\.maxCalls/);
    expect(() => confirmationServer({ keyPrefix: '' })).toThrow(/keyPrefix/);
    expect(() => confirmationServer({ maxBatchSize: 1.5 })).toThrow(/maxBatchSize/);
  });
});

describe('in-band questions (CONF-6a)', () => {
  const record = { v: 1, tool: 'delete_repo', args_hash: 'h1', principal: 'alice', expires_at: 2_000 } as const;
  const call = { principal: 'alice', tool: 'delete_repo', argsHash: 'h1', now: 1_000 };

  it('an answer counts only for the same caller, tool and arguments while the question is open', () => {
    expect(answersQuestion(parseQuestionRecord(record), call)).toBe(true);
    expect(answersQuestion(record, { ...call, principal: 'mallory' })).toBe(false);
    expect(answersQuestion(record, { ...call, tool: 'archive_repo' })).toBe(false);
    expect(answersQuestion(record, { ...call, argsHash: 'h2' })).toBe(false);
    expect(answersQuestion(record, { ...call, now: 2_000 })).toBe(false);
    expect(answersQuestion(undefined, call)).toBe(false);
  });

  it('reads only well-formed records, and keys them by a digest of the state', () => {
    expect(parseQuestionRecord({ ...record, v: 2 })).toBeUndefined();
    expect(parseQuestionRecord({ ...record, expires_at: '2000' })).toBeUndefined();
    expect(parseQuestionRecord('x')).toBeUndefined();
    const key = questionKey('confirmation', 'state-secret');
    expect(key.startsWith('confirmation:question:')).toBe(true);
    expect(key).not.toContain('state-secret');
  });
});
