import { readFileSync } from 'node:fs';
import { ERROR_CATEGORIES, type ErrorCategory, type StructuredError, type ToolResult } from '@ext/core';
import { seedValidators } from '@ext/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODES } from './classes.js';
import { readDraftFailure, readToolFailure } from './read.js';
import { getStructuredError, isRetryable, withRetry } from './retry.js';
import { ERRORS_ID, isStructuredError } from './schema.js';
import {
  CLASS_OF_CATEGORY,
  TOOL_FAILURE_CLASSES,
  TOOL_FAILURE_KEY,
  categoryOfFailure,
  fromToolFailure,
  isToolFailure,
  toToolFailure,
  type ToolFailure,
  type ToolFailureClass,
} from './tool-failure.js';

const seed = seedValidators().check('error');
const NOW = 1_790_000_000_000;

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./test-fixtures/sep-3313/${name}`, import.meta.url), 'utf8')) as unknown;
}

/** The draft's published example (PR #3312, schema/draft/examples/ToolFailure/policy-blocked.json). */
const POLICY_BLOCKED = fixture('policy-blocked.json');
/** The SEP's baseline code vocabulary, by class. */
const BASELINE = fixture('baseline-codes.json') as Record<ToolFailureClass, string[]>;

function draftOnly(failure: unknown, text = 'The call failed.'): ToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [TOOL_FAILURE_KEY]: failure } };
}

const codeArb = fc.stringMatching(/^[A-Z][A-Z0-9]{0,9}(?:_[A-Z0-9]{1,9}){0,4}$/);
const categoryArb = fc.constantFrom(...ERROR_CATEGORIES);
const structuredArb: fc.Arbitrary<StructuredError> = fc
  .record({
    category: categoryArb,
    code: codeArb,
    message: fc.string({ minLength: 1, maxLength: 40 }),
    suggestion: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: undefined }),
    retry_after_seconds: fc.option(fc.integer({ min: 0, max: 86_400 }), { nil: undefined }),
  })
  .map((record) => {
    const error: StructuredError = { code: record.code, message: record.message, category: record.category };
    if (record.suggestion !== undefined) error.suggestion = record.suggestion;
    if (record.retry_after_seconds !== undefined) error.retry_after_seconds = record.retry_after_seconds;
    return error;
  });
const failureArb: fc.Arbitrary<ToolFailure> = fc.record(
  {
    class: fc.constantFrom(...TOOL_FAILURE_CLASSES),
    code: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom(...Object.values(BASELINE).flat())),
    retryable: fc.boolean(),
    retryNotBefore: fc.double({ min: NOW - 1e7, max: NOW + 1e8, noNaN: true }),
    correlationId: fc.string({ maxLength: 40 }),
    agentGuidance: fc.string({ maxLength: 40 }),
  },
  { requiredKeys: ['class', 'code', 'correlationId'] },
);

describe('the draft example (SEP-3313, ERR-31..ERR-34)', () => {
  it('has the shape the package validates', () => {
    expect(isToolFailure(POLICY_BLOCKED)).toBe(true);
  });

  it('reads back as auth_required, with the guidance as the suggestion and the correlation id kept', () => {
    const result = draftOnly(POLICY_BLOCKED, 'Your account is disconnected.');
    const structured = getStructuredError(result);
    expect(structured).toEqual({
      code: 'AUTH_REQUIRED',
      message: 'Your account is disconnected.',
      category: 'auth_required',
      suggestion: 'Ask the user to reconnect their account, then retry the same call.',
      details: { correlation_id: 'req_8f2c1a-attempt-3' },
    });
    expect(seed(structured).errors).toBe('');
    expect(isRetryable(result)).toBe(false);
  });

  it('is not retried blindly, and retried once after onAuthRequired refreshed credentials (ERR-19)', async () => {
    let calls = 0;
    const result = await withRetry(
      () => {
        calls += 1;
        return draftOnly(POLICY_BLOCKED);
      },
      { sleep: () => Promise.resolve(), onAuthRequired: () => true, idempotent: true },
    );
    expect(calls).toBe(2);
    expect(readToolFailure(result)).toEqual(POLICY_BLOCKED);
  });
});

describe('the baseline code vocabulary', () => {
  it.each(Object.entries(BASELINE))('keeps the class of every %s code', (failureClass, codes) => {
    for (const code of codes) {
      const category = categoryOfFailure(failureClass as ToolFailureClass, code);
      expect(CLASS_OF_CATEGORY[category]).toBe(failureClass);
    }
  });

  it('maps invalid_input to invalid_input and the other capability codes to permanent', () => {
    expect(categoryOfFailure('capability', 'invalid_input')).toBe('invalid_input');
    expect(categoryOfFailure('capability', 'resource_not_found')).toBe('permanent');
    expect(categoryOfFailure('capability', 'capability_unsupported')).toBe('permanent');
    expect(categoryOfFailure('reliability', 'retryable_transient_error')).toBe('transient');
    expect(categoryOfFailure('governance', 'policy_blocked')).toBe('auth_required');
  });
});

describe('category -> class -> category (ERR-32, ERR-34)', () => {
  it('writes a valid draft object: retryable and retryNotBefore only for reliability', () => {
    fc.assert(
      fc.property(structuredArb, fc.stringMatching(/^[0-9a-f]{16}$/), (error, id) => {
        const failure = toToolFailure(error, id, NOW);
        expect(isToolFailure(failure)).toBe(true);
        expect(failure.class).toBe(CLASS_OF_CATEGORY[error.category]);
        expect(failure.correlationId).toBe(id);
        expect(failure.code).toBe(error.code.toLowerCase());
        expect(failure.agentGuidance).toBe(error.suggestion);
        const reliability = failure.class === 'reliability';
        expect(failure.retryable).toBe(reliability ? true : undefined);
        if (!reliability || error.retry_after_seconds === undefined) expect(failure.retryNotBefore).toBeUndefined();
        else expect(failure.retryNotBefore).toBe(NOW + error.retry_after_seconds * 1000);
      }),
    );
  });

  it('keeps the class, the retry behaviour, the code, the wait and the suggestion', () => {
    fc.assert(
      fc.property(structuredArb, (error) => {
        const back = fromToolFailure(toToolFailure(error, 'abc', NOW), error.message, NOW);
        expect(isStructuredError(back)).toBe(true);
        expect(CLASS_OF_CATEGORY[back.category]).toBe(CLASS_OF_CATEGORY[error.category]);
        expect(back.code).toBe(error.code);
        // A blank text says nothing: the class's own sentence replaces it.
        if (error.message.trim() === '') expect(back.message.trim()).not.toBe('');
        else expect(back.message).toBe(error.message);
        expect(back.suggestion).toBe(error.suggestion);
        const waits = CLASS_OF_CATEGORY[error.category] === 'reliability' && (error.retry_after_seconds ?? 0) > 0;
        expect(back.retry_after_seconds).toBe(waits ? error.retry_after_seconds : undefined);
      }),
    );
  });

  it.each(ERROR_CATEGORIES)('gives %s back exactly with its default code', (category: ErrorCategory) => {
    const error: StructuredError = { code: DEFAULT_CODES[category], message: 'm', category };
    expect(fromToolFailure(toToolFailure(error, 'id', NOW), 'm', NOW).category).toBe(category);
  });

  it('class -> category -> class is the identity for any draft object', () => {
    fc.assert(
      fc.property(failureArb, (failure) => {
        const back = fromToolFailure(failure, undefined, NOW);
        expect(isStructuredError(back)).toBe(true);
        expect(seed(back).errors).toBe('');
        expect(CLASS_OF_CATEGORY[back.category]).toBe(failure.class);
        expect(back.code).toMatch(/^[A-Z][A-Z0-9_]{0,63}$/);
        expect(back.details).toEqual({ correlation_id: failure.correlationId });
        if (back.retry_after_seconds !== undefined) {
          expect(failure.retryable).toBe(true);
          expect(NOW + back.retry_after_seconds * 1000).toBeGreaterThanOrEqual(failure.retryNotBefore ?? 0);
        }
      }),
    );
  });
});

describe('reading the draft key (ERR-34, ERR-35)', () => {
  it('prefers our structured error when a result carries both', () => {
    const ours: StructuredError = { code: 'BUSY', message: 'Busy.', category: 'transient', retry_after_seconds: 2 };
    const result: ToolResult = {
      content: [{ type: 'text', text: 'Busy.' }],
      isError: true,
      _meta: { [ERRORS_ID]: ours, [TOOL_FAILURE_KEY]: { class: 'capability', code: 'other', correlationId: 'c' } },
    };
    expect(getStructuredError(result)).toEqual(ours);
    expect(isRetryable(result)).toBe(true);
  });

  it('ignores the key on a result without isError, and a malformed or hostile value', () => {
    const valid = { class: 'reliability', code: 'busy', correlationId: 'c', retryable: true };
    expect(readToolFailure({ content: [], _meta: { [TOOL_FAILURE_KEY]: valid } })).toBeUndefined();
    for (const bad of [
      { class: 'other', code: 'x', correlationId: 'c' },
      { class: 'capability', code: 'x' },
      { class: 'capability', code: 1, correlationId: 'c' },
      { class: 'reliability', code: 'x', correlationId: 'c', retryNotBefore: 'soon' },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('hostile');
          },
        },
      ),
    ]) {
      expect(readDraftFailure(draftOnly(bad), NOW)).toBeUndefined();
    }
  });

  it('retries a draft reliability failure only when retryable and the tool is idempotent', async () => {
    const busy = draftOnly({
      class: 'reliability',
      code: 'retryable_transient_error',
      correlationId: 'c',
      retryable: true,
    });
    const notRetryable = draftOnly({ class: 'reliability', code: 'retryable_transient_error', correlationId: 'c' });
    const count = async (result: ToolResult, idempotent: boolean | undefined): Promise<number> => {
      let calls = 0;
      await withRetry(
        () => {
          calls += 1;
          return result;
        },
        { sleep: () => Promise.resolve(), idempotent },
      );
      return calls;
    };
    expect(await count(busy, true)).toBe(3);
    expect(await count(busy, undefined)).toBe(1);
    expect(await count(notRetryable, true)).toBe(1);
    expect(isRetryable(busy)).toBe(true);
    expect(isRetryable(notRetryable)).toBe(false);
  });

  it('waits at least until retryNotBefore', async () => {
    const waits: number[] = [];
    const retryNotBefore = Date.now() + 5_000;
    let calls = 0;
    await withRetry(
      () => {
        calls += 1;
        return draftOnly({
          class: 'reliability',
          code: 'rate_limited',
          correlationId: 'c',
          retryable: true,
          retryNotBefore,
        });
      },
      {
        idempotent: true,
        maxAttempts: 2,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      },
    );
    expect(calls).toBe(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(4_000);
  });

  it('refuses a non-boolean idempotent option, naming it', async () => {
    await expect(withRetry(() => 1, { idempotent: 'yes' as unknown as boolean })).rejects.toThrow(/idempotent/);
  });
});
