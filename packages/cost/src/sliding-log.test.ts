import { MemoryStore } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adjustSliding, reserveSliding } from './sliding-counter.js';
import { adjust, admit, MAX_LOG_ENTRIES, readLog, standingAt, type SlidingLog } from './sliding-log.js';

const WINDOW_MS = 60_000;

/** The most units admitted in any span of `WINDOW_MS` (it suffices to try the spans starting at a charge). */
function busiestWindow(charges: readonly { at: number; units: number }[]): number {
  return Math.max(
    0,
    ...charges.map(({ at }) =>
      charges.filter((other) => other.at >= at && other.at < at + WINDOW_MS).reduce((sum, c) => sum + c.units, 0),
    ),
  );
}

/** Call times over a few windows, in order, with the units each charges and whether it gives them back after. */
const callsArbitrary = fc
  .array(
    fc.record({ gap: fc.integer({ min: 0, max: 20_000 }), units: fc.integer({ min: 0, max: 3 }), back: fc.boolean() }),
    { minLength: 1, maxLength: 200 },
  )
  .map((steps) => {
    let at = Date.UTC(2026, 2, 15, 12, 0, 0);
    return steps.map((step) => ({ ...step, at: (at += step.gap) }));
  });

describe('the sliding log (COST-20)', () => {
  it('for any call times, no span of the window admits more than the limit, given-back charges aside (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 150 }), callsArbitrary, (limit, calls) => {
        let log: SlidingLog = [];
        const kept: { at: number; units: number }[] = [];
        for (const call of calls) {
          const admission = admit(log, call.at, WINDOW_MS, limit, call.units);
          if (!admission.admitted) {
            expect(admission.roomAtMs).toBeGreaterThan(call.at);
            continue;
          }
          log = admission.log;
          expect(log.length).toBeLessThanOrEqual(MAX_LOG_ENTRIES);
          if (call.back) log = adjust(log, call.at, -call.units, call.at, WINDOW_MS);
          else kept.push({ at: call.at, units: call.units });
        }
        expect(busiestWindow(kept)).toBeLessThanOrEqual(limit);
      }),
    );
  });

  it('while the log holds every charge apart, admits exactly what fits the window ending at the call (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_LOG_ENTRIES }), callsArbitrary, (limit, calls) => {
        let log: SlidingLog = [];
        const kept: { at: number; units: number }[] = [];
        for (const call of calls) {
          const units = Math.min(call.units, 1);
          const inWindow = kept.filter((c) => c.at + WINDOW_MS > call.at).reduce((sum, c) => sum + c.units, 0);
          const admission = admit(log, call.at, WINDOW_MS, limit, units);
          expect(admission.admitted).toBe(inWindow + units <= limit);
          if (admission.admitted) {
            log = admission.log;
            kept.push({ at: call.at, units });
          } else {
            // Retrying when it says, the call fits.
            expect(admit(log, admission.roomAtMs, WINDOW_MS, limit, units).admitted).toBe(true);
          }
        }
      }),
    );
  });

  it("gives back nothing of a charge made a window or more later, which the call's own had left for", () => {
    const start = 1_000_000;
    // Admitted at start; a later call at start + window dropped it and was admitted; then the first gives its unit back.
    let log: SlidingLog = [[start, 1]];
    const later = admit(log, start + WINDOW_MS, WINDOW_MS, 1, 1);
    if (!later.admitted) throw new Error('expected room');
    log = adjust(later.log, start, -1, start, WINDOW_MS);
    expect(log).toEqual([[start + WINDOW_MS, 1]]);
    expect(admit(log, start + WINDOW_MS, WINDOW_MS, 1, 1).admitted).toBe(false);
  });

  it('counts a charge for the whole window and no longer, and reports when the oldest leaves', () => {
    const start = 1_000_000;
    let log: SlidingLog = [];
    for (const at of [start, start + 10_000]) {
      const admission = admit(log, at, WINDOW_MS, 2, 1);
      if (!admission.admitted) throw new Error('expected room');
      log = admission.log;
    }
    expect(standingAt(log, start + WINDOW_MS - 1, WINDOW_MS)).toEqual({ used: 2, resetsAtMs: start + WINDOW_MS });
    expect(standingAt(log, start + WINDOW_MS, WINDOW_MS)).toEqual({ used: 1, resetsAtMs: start + 70_000 });
    expect(admit(log, start + 30_000, WINDOW_MS, 2, 1)).toEqual({ admitted: false, used: 2, roomAtMs: start + 60_000 });
    expect(() => readLog({ v: 2 })).toThrow(/cannot read/);
  });
});

describe('the sliding counter on a store (COST-20)', () => {
  it('for any call times, concurrent reservations on the store admit no more than the limit in any span of the window (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        callsArbitrary,
        fc.integer({ min: 1, max: 6 }),
        async (limit, calls, burst) => {
          const store = new MemoryStore();
          const meter = (units: number) => ({ key: 'q', limit, charge: units, windowMs: WINDOW_MS });
          const kept: { at: number; units: number }[] = [];
          // Calls close in time race each other, `burst` at a time.
          for (let index = 0; index < calls.length; index += burst) {
            const group = calls.slice(index, index + burst);
            const outcomes = await Promise.all(group.map((call) => reserveSliding(store, meter(call.units), call.at)));
            for (const [position, outcome] of outcomes.entries()) {
              const call = group[position]!;
              if (!outcome.admitted) continue;
              if (call.back) await adjustSliding(store, meter(call.units), call.at, -call.units);
              else kept.push({ at: call.at, units: call.units });
            }
          }
          expect(busiestWindow(kept)).toBeLessThanOrEqual(limit);
          await store.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});
