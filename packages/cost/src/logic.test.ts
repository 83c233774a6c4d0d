import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolCost } from './declaration.js';
import { describeCost } from './describe.js';
import { readResultCost, readToolCost } from './entries.js';
import {
  admits,
  chargeOf,
  counterKey,
  fixedWindow,
  planMeters,
  quotaState,
  roomAfterUndo,
  secondsUntil,
  settledUnits,
} from './meters.js';
import { COST_ID, MAX_WINDOW_SECONDS, type CostToolMeta } from './schema.js';

const NOON = Date.UTC(2026, 2, 15, 12, 0, 20);

describe('parseToolCost (COST-2, COST-3)', () => {
  it('COST-2 COST-20: fills the defaults: free, one unit, a daily quota window that slides', () => {
    expect(parseToolCost({})).toEqual({ ok: true, value: { cost: { category: 'free', estimated_units: 1 } } });
    expect(parseToolCost({ cost: { category: 'metered' }, quota: { limit: 3 }, rate_limits: {} })).toEqual({
      ok: true,
      value: {
        cost: { category: 'metered', estimated_units: 1 },
        quota: { limit: 3, window_seconds: 86_400, window: 'sliding' },
      },
    });
  });

  it('COST-3: names the field of every mistake', () => {
    const cases: [unknown, string][] = [
      [null, ''],
      [[], ''],
      [{ costs: {} }, 'costs'],
      [{ cost: 'metered' }, 'cost'],
      [{ cost: { category: 'cheap' } }, 'cost.category'],
      [{ cost: { estimated_units: 2 } }, 'cost.category'],
      [{ cost: { category: 'metered', estimated_units: -1 } }, 'cost.estimated_units'],
      [{ cost: { category: 'metered', estimated_units: Number.POSITIVE_INFINITY } }, 'cost.estimated_units'],
      [{ cost: { category: 'metered', unit_label: '' } }, 'cost.unit_label'],
      [{ cost: { category: 'metered', price: 3 } }, 'cost.price'],
      [{ latency: 'hours' }, 'latency'],
      [{ quota: 5 }, 'quota'],
      [{ quota: { limit: 0 } }, 'quota.limit'],
      [{ quota: { limit: 1.5 } }, 'quota.limit'],
      [{ quota: { limit: 5, window_seconds: 0 } }, 'quota.window_seconds'],
      [{ quota: { limit: 5, window_seconds: MAX_WINDOW_SECONDS + 1 } }, 'quota.window_seconds'],
      [{ quota: { limit: 5, pool: 'a b' } }, 'quota.pool'],
      [{ quota: { limit: 5, period: 'day' } }, 'quota.period'],
      [{ cost: { category: 'metered', estimated_units: 6 }, quota: { limit: 5 } }, 'cost.estimated_units'],
      [{ rate_limits: [] }, 'rate_limits'],
      [{ rate_limits: { requests_per_second: 5 } }, 'rate_limits.requests_per_second'],
      [{ rate_limits: { requests_per_minute: 0 } }, 'rate_limits.requests_per_minute'],
    ];
    for (const [input, field] of cases) {
      const parsed = parseToolCost(input);
      expect(parsed, JSON.stringify(input)).toMatchObject({ ok: false, field });
    }
  });

  it('COST-3: never throws, whatever it is given, and what it accepts is valid tool metadata', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const parsed = parseToolCost(input);
        if (parsed.ok) expect(readToolCost({ [COST_ID]: parsed.value }, COST_ID)).toEqual(parsed.value);
      }),
    );
  });

  const declaration = fc.record(
    {
      cost: fc.record(
        {
          category: fc.constantFrom('free', 'metered', 'requires_approval'),
          estimated_units: fc.integer({ min: 0, max: 5 }),
          unit_label: fc.constantFrom('credits', 'API calls'),
        },
        { requiredKeys: ['category'] },
      ),
      latency: fc.constantFrom('instant', 'seconds', 'minutes'),
      quota: fc.record(
        { limit: fc.integer({ min: 5, max: 1000 }), window_seconds: fc.integer({ min: 1, max: MAX_WINDOW_SECONDS }) },
        { requiredKeys: ['limit'] },
      ),
      rate_limits: fc.record(
        {
          requests_per_minute: fc.integer({ min: 1, max: 100 }),
          requests_per_day: fc.integer({ min: 1, max: 10_000 }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );

  it('COST-2: accepts every well-formed declaration, and reading its output again changes nothing', () => {
    fc.assert(
      fc.property(declaration, (input) => {
        const once = parseToolCost(input);
        expect(once.ok).toBe(true);
        if (once.ok) expect(parseToolCost(once.value)).toEqual(once);
      }),
    );
  });
});

describe('fixed windows (COST-5, COST-8)', () => {
  it('places every instant in exactly one window and counts the seconds to its end', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.integer({ min: 1, max: MAX_WINDOW_SECONDS }),
        (now, seconds) => {
          const window = fixedWindow(now, seconds);
          expect(window.startMs).toBeLessThanOrEqual(now);
          expect(now).toBeLessThan(window.endMs);
          expect(window.endMs - window.startMs).toBe(seconds * 1000);
          const wait = secondsUntil(window.endMs, now);
          expect(wait).toBeGreaterThanOrEqual(1);
          expect(wait).toBeLessThanOrEqual(seconds);
          // Waiting that long always lands in the next window.
          expect(fixedWindow(now + wait * 1000, seconds).index).toBe(window.index + 1);
        },
      ),
    );
  });

  it('aligns daily windows to midnight UTC', () => {
    expect(new Date(fixedWindow(NOON, 86_400).endMs).toISOString()).toBe('2026-03-16T00:00:00.000Z');
    expect(secondsUntil(fixedWindow(NOON, 60).endMs, NOON)).toBe(40);
  });
});

describe('planMeters (COST-5, COST-8)', () => {
  const meta: CostToolMeta = {
    cost: { category: 'metered', estimated_units: 2.5 },
    quota: { limit: 10, window_seconds: 3600, window: 'fixed' },
    rate_limits: { requests_per_minute: 5, requests_per_day: 100, requests_per_hour: 20 },
  };

  it('reserves the quota first, then rate limits from the longest window to the shortest', () => {
    const meters = planMeters(meta, 'render', 'alice', NOON, 'cost');
    expect(meters.map((meter) => [meter.name, meter.limit, meter.charge])).toEqual([
      ['quota', 10, 3],
      ['requests_per_day', 100, 1],
      ['requests_per_hour', 20, 1],
      ['requests_per_minute', 5, 1],
    ]);
  });

  it('keys counters per principal, tool or pool, and window, with no way for names to collide', () => {
    const keys = (tool: string, principal: string, at = NOON, declared: CostToolMeta = meta): string[] =>
      planMeters(declared, tool, principal, at, 'cost').map((meter) => meter.key);
    expect(keys('render', 'alice')).not.toEqual(keys('render', 'bob'));
    expect(keys('render', 'alice')).not.toEqual(keys('print', 'alice'));
    expect(keys('render', 'alice')[0]).not.toBe(keys('render', 'alice', NOON + 3_600_000)[0]);
    // A sliding quota keeps one log, whenever the call comes (COST-20).
    const sliding: CostToolMeta = { ...meta, quota: { limit: 10, window_seconds: 3600, window: 'sliding' } };
    expect(keys('render', 'alice', NOON, sliding)[0]).toBe(keys('render', 'alice', NOON + 3_600_000, sliding)[0]);
    expect(keys('render', 'alice', NOON, sliding)[0]).not.toBe(keys('render', 'alice')[0]);
    expect(counterKey('cost', 'quota', 'a:b', 'c', 60, 1)).not.toBe(counterKey('cost', 'quota', 'a', 'b:c', 60, 1));
    const pooled = (tool: string): string | undefined =>
      planMeters(
        {
          cost: { category: 'metered', estimated_units: 1 },
          quota: { limit: 4, window_seconds: 60, pool: 'messages' },
        },
        tool,
        'alice',
        NOON,
        'cost',
      )[0]?.key;
    expect(pooled('send_sms')).toBe(pooled('send_email'));
  });
});

describe('the reservation rule (COST-6, COST-9)', () => {
  /**
   * Replays the server's add-then-take-back steps on one counter, with the
   * calls' steps interleaved in an arbitrary order: the admitted charges
   * never pass the limit, and refused calls leave nothing behind.
   */
  it('admits at most the limit under any interleaving, and leaves the counter at what was admitted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 200 }),
        (limit, charges, schedule) => {
          let counter = 0;
          type State = { step: 'add' } | { step: 'undo' } | { step: 'done'; admitted: boolean };
          const calls: { charge: number; state: State; attempts: number }[] = charges.map((charge) => ({
            charge,
            state: { step: 'add' },
            attempts: 0,
          }));
          const advance = (index: number): void => {
            const call = calls[index]!;
            if (call.state.step === 'add') {
              counter += call.charge;
              call.attempts += 1;
              call.state = admits(counter, limit)
                ? { step: 'done', admitted: true }
                : call.charge === 0
                  ? { step: 'done', admitted: false }
                  : { step: 'undo' };
            } else if (call.state.step === 'undo') {
              counter -= call.charge;
              call.state =
                call.attempts < 3 && roomAfterUndo(counter, call.charge, limit)
                  ? { step: 'add' }
                  : { step: 'done', admitted: false };
            }
          };
          for (const pick of schedule) {
            const pending = calls
              .map((call, index) => [call, index] as const)
              .filter(([call]) => call.state.step !== 'done');
            if (pending.length === 0) break;
            advance(pending[pick % pending.length]![1]);
          }
          for (let index = 0; index < calls.length; index += 1)
            while (calls[index]!.state.step !== 'done') advance(index);
          const admitted = calls
            .filter((call) => call.state.step === 'done' && call.state.admitted)
            .reduce((sum, call) => sum + call.charge, 0);
          expect(admitted).toBeLessThanOrEqual(limit);
          expect(counter).toBe(admitted);
        },
      ),
    );
  });

  it('COST-11: charges whole units, rounding fractions up', () => {
    expect(chargeOf(0)).toBe(0);
    expect(chargeOf(0.2)).toBe(1);
    expect(chargeOf(3)).toBe(3);
    expect(settledUnits(5, undefined, false)).toBe(5);
    expect(settledUnits(5, undefined, true)).toBe(0);
    expect(settledUnits(5, 2, true)).toBe(2);
  });

  it('COST-12: reports a state that never goes below zero remaining', () => {
    const [meter] = planMeters(
      {
        cost: { category: 'metered', estimated_units: 1 },
        quota: { limit: 3, window_seconds: 60, window: 'fixed', pool: 'p' },
      },
      't',
      'a',
      NOON,
      'cost',
    );
    expect(quotaState(meter!, 5)).toEqual({
      limit: 3,
      used: 5,
      remaining: 0,
      resets_at: '2026-03-15T12:01:00.000Z',
      window_seconds: 60,
      pool: 'p',
    });
  });
});

describe('readers (COST-12)', () => {
  it('ignore unknown fields and refuse malformed entries', () => {
    const entry = { units_used: 1, estimated_units: 1, future_field: true };
    expect(readResultCost({ content: [], _meta: { [COST_ID]: entry } }, COST_ID)).toEqual(entry);
    expect(
      readResultCost({ content: [], _meta: { [COST_ID]: { units_used: -1, estimated_units: 1 } } }, COST_ID),
    ).toBeUndefined();
    expect(readResultCost({ content: [] }, COST_ID)).toBeUndefined();
    expect(
      readToolCost({ [COST_ID]: { cost: { category: 'priceless', estimated_units: 1 } } }, COST_ID),
    ).toBeUndefined();
  });
});

describe('describeCost (COST-16)', () => {
  const exportMeta: CostToolMeta = {
    cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
    latency: 'minutes',
    quota: { limit: 12, window_seconds: 86_400 },
  };
  const quota = { limit: 12, used: 0, remaining: 12, resets_at: '2026-03-16T00:00:00.000Z', window_seconds: 86_400 };

  it('says how long a call takes and what it uses of the quota left', () => {
    expect(describeCost({ subject: 'this export', meta: exportMeta, quota })).toBe(
      'This export takes minutes and uses 5 of your 12 remaining API calls (the quota resets at 2026-03-16T00:00:00.000Z).',
    );
  });

  it('presents costs as estimates, names approval, and flags a call the budget cannot pay', () => {
    expect(
      describeCost({
        subject: '"render"',
        meta: { cost: { category: 'metered', estimated_units: 2.5, unit_label: 'credits' }, latency: 'seconds' },
      }),
    ).toBe('"render" takes seconds and uses about 2.5 credits.');
    expect(
      describeCost({
        subject: '"search"',
        meta: { cost: { category: 'free', estimated_units: 1 }, latency: 'instant' },
      }),
    ).toBe('"search" is instant and is free.');
    expect(
      describeCost({
        subject: '"wire"',
        meta: { cost: { category: 'requires_approval', estimated_units: 1 } },
        budgetRemaining: 0,
      }),
    ).toBe(
      '"wire" uses about 1 unit, and needs your approval first. That is more than the 0 units left in your budget.',
    );
  });
});
