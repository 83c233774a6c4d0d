import { describe, expect, it } from 'vitest';
import { parseDecision } from './decision.js';

describe('parseDecision', () => {
  it('takes approve and a trimmed reason, and nothing else', () => {
    expect(parseDecision('{"approve":true}')).toEqual({ decision: { approve: true, reason: undefined } });
    expect(parseDecision('{"approve":false,"reason":"  no  ","by":"mallory"}')).toEqual({
      decision: { approve: false, reason: 'no' },
    });
    expect(parseDecision('{"approve":true,"reason":"   "}')).toEqual({
      decision: { approve: true, reason: undefined },
    });
  });

  it('says what is wrong with anything else', () => {
    expect(parseDecision('nope')).toHaveProperty('problem');
    expect(parseDecision('[]')).toEqual({ problem: 'approve must be true or false' });
    expect(parseDecision('{"approve":1}')).toEqual({ problem: 'approve must be true or false' });
    expect(parseDecision('{"approve":true,"reason":5}')).toEqual({ problem: 'reason must be a string' });
    expect(parseDecision(JSON.stringify({ approve: true, reason: 'x'.repeat(501) }))).toEqual({
      problem: 'reason must be at most 500 characters',
    });
  });
});
