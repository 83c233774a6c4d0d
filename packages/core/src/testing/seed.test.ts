import { describe, expect, it } from 'vitest';
import { SEED_SCHEMAS, seedValidators } from './seed.js';

describe('seed schemas', () => {
  const validators = seedValidators();

  it('registers every seed schema, so cross-schema references resolve', () => {
    expect(Object.keys(SEED_SCHEMAS)).toHaveLength(10);
    const rollback = validators.check('transactions', 'TransactionRollbackResult');
    const result = rollback({
      transaction_id: 'tx-1',
      status: 'partially_rolled_back',
      steps_compensated: [
        { step_id: 's-1', status: 'compensation_failed', error: { code: 'X', message: 'x', category: 'permanent' } },
      ],
    });
    expect(result.errors).toBe('');
    // data-references points at error.json by $ref: compiling it proves the reference resolves.
    expect(() => validators.check('data-references')).not.toThrow();
  });

  it('can fail: a payload violating the error schema is reported', () => {
    const check = validators.check('error');
    expect(check({ code: 'X', message: 'x', category: 'sometimes' }).valid).toBe(false);
    expect(check({ code: 'X', message: 'x', category: 'transient', documentation_url: 'not a uri' }).valid).toBe(false);
  });

  it('refuses an unknown definition', () => {
    expect(() => validators.check('transactions', 'Nope')).toThrow(/no definition Nope/);
  });
});
