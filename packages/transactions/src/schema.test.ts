import { ExtensionError } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedValidators } from '@ext/core/testing';
import { META_POINTER, parseInput } from './input.js';
import { BeginParams, RollbackParams, StepRequestMeta, TRANSACTIONS_ID, transactionsJsonSchema } from './schema.js';

const seed = seedValidators();

function refusal(run: () => unknown): ExtensionError {
  try {
    run();
  } catch (error) {
    if (ExtensionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('wire schemas', () => {
  it('TXN-1: the identifier is io.github.mcp-ext/transactions', () => {
    expect(TRANSACTIONS_ID).toBe('io.github.mcp-ext/transactions');
  });

  it('TXN-2: every begin and rollback request this package accepts is valid against the seed schema', () => {
    const id = fc.stringMatching(/^[a-zA-Z0-9_\-:.]{1,128}$/);
    fc.assert(
      fc.property(
        fc.record(
          {
            transaction_id: id,
            timeout_seconds: fc.integer({ min: 1, max: 10_000 }),
            description: fc.string({ maxLength: 40 }),
          },
          { requiredKeys: ['transaction_id'] },
        ),
        (params) => {
          expect(parseInput(BeginParams, params, '/params')).toEqual(params);
          expect(seed.check('transactions', 'TransactionBegin')(params).valid).toBe(true);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.record({ transaction_id: id, reason: fc.string({ maxLength: 40 }) }, { requiredKeys: ['transaction_id'] }),
        (params) => {
          expect(parseInput(RollbackParams, params, '/params')).toEqual(params);
          expect(seed.check('transactions', 'TransactionRollback')(params).valid).toBe(true);
        },
      ),
    );
  });

  it('TXN-5: malformed input is refused with the JSON pointer of the first violation, never a crash', () => {
    expect(refusal(() => parseInput(StepRequestMeta, { transaction_id: 7 }, META_POINTER)).details).toEqual({
      field: 'transaction_id',
      pointer: '/_meta/io.github.mcp-ext~1transactions/transaction_id',
    });
    expect(
      refusal(() => parseInput(BeginParams, { transaction_id: 'ok', timeout_seconds: 0 }, '/params')).details,
    ).toEqual({
      field: 'timeout_seconds',
      pointer: '/params/timeout_seconds',
    });
    const missing = refusal(() => parseInput(BeginParams, {}, '/params'));
    expect(missing.details).toEqual({ field: 'transaction_id', pointer: '/params/transaction_id' });
    expect(missing.message).toBe('/params/transaction_id is required');
    fc.assert(
      fc.property(fc.anything(), (value) => {
        try {
          parseInput(StepRequestMeta, value, META_POINTER);
        } catch (error) {
          expect(ExtensionError.isInstance(error)).toBe(true);
          expect((error as ExtensionError).category).toBe('invalid_input');
        }
      }),
    );
  });

  it('the schema.json shipped in dist is the generated JSON Schema (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(transactionsJsonSchema, null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });
});
