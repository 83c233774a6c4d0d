import { describe, expect, it } from 'vitest';
import { durationText, expiresText, instantText, lifetimeText, trailTimeText, waitingText } from './time-text.js';

describe('time text', () => {
  it('says a span in the largest units that fit', () => {
    expect(durationText(-5)).toBe('0 s');
    expect(durationText(42_400)).toBe('42 s');
    expect(durationText(3 * 60_000 + 59_000)).toBe('3 min');
    expect(durationText(2 * 3_600_000)).toBe('2 h');
    expect(durationText(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(durationText(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
  });

  it('says how long a request waited and how long it has left', () => {
    expect(waitingText(0, 30_000)).toBe('waiting under a minute');
    expect(waitingText(0, 3 * 60_000)).toBe('waiting 3 min');
    expect(expiresText(12 * 60_000, 0)).toBe('expires in 12 min');
    expect(expiresText(0, 0)).toBe('expired');
  });

  it('says instants and lifetimes in words', () => {
    const at = Date.UTC(2026, 10, 28, 4, 27, 12);
    expect(instantText(at)).toBe('28 Nov 2026, 04:27 UTC');
    expect(trailTimeText(at)).toBe('28 Nov, 04:27:12 UTC');
    expect(lifetimeText(28_800)).toBe('8 hours');
    expect(lifetimeText(86_400)).toBe('1 day');
    expect(lifetimeText(90)).toBe('90 seconds');
  });
});
