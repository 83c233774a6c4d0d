import { describe, expect, it } from 'vitest';
import { caseFigures, compareRows, overall, renderComparison, WORSE_BEYOND } from './compare.js';

const row = (name: string, medianMs: number, more: { baseline?: string; sdkOnly?: true } = {}) => ({
  name,
  medianMs,
  ...more,
});

describe('bench:compare', () => {
  it('keeps the lowest median of each case, and the median of what it added in its own round', () => {
    const figures = caseFigures([
      [row('bare', 0.02, { sdkOnly: true }), row('stack', 0.05, { baseline: 'bare' })],
      [row('bare', 0.01, { sdkOnly: true }), row('stack', 0.045, { baseline: 'bare' })],
      [row('bare', 0.04, { sdkOnly: true }), row('stack', 0.07, { baseline: 'bare' })],
    ]);
    expect(figures.get('bare')).toEqual({ bestMs: 0.01, addedMs: undefined, sdkOnly: true });
    expect(figures.get('stack')?.bestMs).toBe(0.045);
    // Added per round: 0.03, 0.035, 0.03; a slow round is slow in both cases.
    expect(figures.get('stack')?.addedMs).toBeCloseTo(0.03, 9);
  });

  it('judges a case with a baseline by what it adds, as a share of its whole median before', () => {
    // The second checkout's process is twice as slow throughout, and adds the same: not worse.
    const before = {
      label: 'old',
      rounds: [[row('bare', 0.02, { sdkOnly: true }), row('stack', 0.03, { baseline: 'bare' })]],
    };
    const slowProcess = {
      label: 'new',
      rounds: [[row('bare', 0.04, { sdkOnly: true }), row('stack', 0.05, { baseline: 'bare' })]],
    };
    const [bare, stack] = compareRows(before, slowProcess);
    expect(bare).toMatchObject({ name: 'bare', worse: false });
    expect(stack).toMatchObject({ name: 'stack', worse: false });
    expect(stack?.change).toBeCloseTo(0, 9);
    // Adding 0.01 ms more than before, on a 0.03 ms call, is a third slower.
    const heavier = {
      label: 'new',
      rounds: [[row('bare', 0.02, { sdkOnly: true }), row('stack', 0.04, { baseline: 'bare' })]],
    };
    const [, judged] = compareRows(before, heavier);
    expect(judged?.change).toBeCloseTo(1 / 3, 9);
    expect(judged?.worse).toBe(true);
  });

  it('sums the run up as geometric means of the best medians, ours apart from the SDK alone', () => {
    const rows = compareRows(
      { label: 'old', rounds: [[row('sdk', 0.1, { sdkOnly: true }), row('a', 0.1), row('b', 0.4)]] },
      { label: 'new', rounds: [[row('sdk', 0.2, { sdkOnly: true }), row('a', 0.2), row('b', 0.2)]] },
    );
    // a twice as slow, b twice as fast: taken together, even.
    expect(overall(rows).ours).toBeCloseTo(1, 9);
    expect(overall(rows).sdkOnly).toBeCloseTo(2, 9);
  });

  it('compares only the cases both checkouts measured, in the later order', () => {
    const rows = compareRows(
      { label: 'old', rounds: [[row('gone', 1), row('a', 0.2), row('b', 0.1)]] },
      { label: 'new', rounds: [[row('b', 0.15), row('a', 0.2), row('added', 1)]] },
    );
    expect(rows.map((compared) => [compared.name, compared.change])).toEqual([
      ['b', expect.closeTo(0.5, 9)],
      ['a', 0],
    ]);
  });

  it('names the cases of ours slower than the margin allows, and only those', () => {
    const slower = 0.1 * (1 + WORSE_BEYOND) * 1.01;
    const withinMargin = 0.1 * (1 + WORSE_BEYOND) * 0.99;
    const section = renderComparison(
      {
        label: 'old',
        rounds: [[row('sdk', 0.1, { sdkOnly: true }), row('slow', 0.1), row('even', 0.1), row('fast', 0.1)]],
      },
      {
        label: 'new',
        rounds: [
          [row('sdk', 0.5, { sdkOnly: true }), row('slow', slower), row('even', withinMargin), row('fast', 0.05)],
        ],
      },
      'Context.',
    );
    expect(section).toContain('| case | old, best | new, best | old, adds | new, adds | slower by |');
    expect(section).toContain('| fast | 100 µs | 50.0 µs |  |  | -50.0% |');
    expect(section).toContain('| sdk (the SDK alone) | 100 µs | 500 µs |  |  | +400.0% |');
    expect(section).toMatch(/Single cases beyond 10% in this run: slow\.$/);
  });

  it('says so when no case of ours got worse', () => {
    const section = renderComparison(
      { label: 'old', rounds: [[row('a', 0.1)], [row('a', 0.2)]] },
      { label: 'new', rounds: [[row('a', 0.105)], [row('a', 0.3)]] },
      'Context.',
    );
    expect(section).toContain('2 rounds taken in turn');
    expect(section).toContain('| a | 100 µs | 105 µs |  |  | +5.0% |');
    expect(section).toMatch(/No single case of ours is slower by more than 10%\.$/);
    expect(section).toContain('Over the 1 cases of ours, new takes 1.050x the time of old');
  });
});
