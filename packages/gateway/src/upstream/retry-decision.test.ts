// The pure decision "may this call be sent again after this fault", over every combination of what makes a call safe.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRepeatable, mayRetry, UNSAFE_CALL, type CallSafety, type FaultStage } from './retry-decision.js';

const safety: fc.Arbitrary<CallSafety> = fc.record({
  readOnly: fc.boolean(),
  idempotencyKey: fc.boolean(),
  policy: fc.constantFrom(true, false, undefined),
});
const stage: fc.Arbitrary<FaultStage> = fc.constantFrom('unsent', 'sent');

describe('mayRetry', () => {
  it('sends any call again after a fault before it was sent: nothing ran', () => {
    fc.assert(
      fc.property(safety, (call) => {
        expect(mayRetry(call, 'unsent')).toBe(true);
      }),
    );
  });

  it('never sends again a call that may have reached the upstream when the policy says `retry: false`', () => {
    fc.assert(
      fc.property(safety, (call) => {
        expect(mayRetry({ ...call, policy: false }, 'sent')).toBe(false);
      }),
    );
  });

  it('sends again any call after any fault when the policy says `retry: true`', () => {
    fc.assert(
      fc.property(safety, stage, (call, at) => {
        expect(mayRetry({ ...call, policy: true }, at)).toBe(true);
      }),
    );
  });

  it('with the policy silent, sends again a call that may have reached the upstream exactly when it is read-only or keyed', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (readOnly, idempotencyKey) => {
        const call = { readOnly, idempotencyKey, policy: undefined };
        expect(mayRetry(call, 'sent')).toBe(readOnly || idempotencyKey);
      }),
    );
  });

  it('a call nothing says is safe is sent again only when it was never sent', () => {
    expect(mayRetry(UNSAFE_CALL, 'unsent')).toBe(true);
    expect(mayRetry(UNSAFE_CALL, 'sent')).toBe(false);
  });

  it('saying more about a call never turns a retry into none: a read-only hint or a key only adds', () => {
    fc.assert(
      fc.property(safety, stage, fc.constantFrom('readOnly', 'idempotencyKey'), (call, at, field) => {
        if (mayRetry(call, at)) expect(mayRetry({ ...call, [field]: true }, at)).toBe(true);
      }),
    );
  });

  it('agrees with isRepeatable: a call safe to repeat is sent again whatever the stage, another only before sending', () => {
    fc.assert(
      fc.property(safety, stage, (call, at) => {
        expect(mayRetry(call, at)).toBe(at === 'unsent' || isRepeatable(call));
      }),
    );
  });
});
