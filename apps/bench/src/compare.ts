/**
 * `bench:compare`'s arithmetic: each case of each checkout over its rounds,
 * and the section of BENCHMARKS.md that sets them side by side. No I/O here;
 * `compare-main.ts` runs the checkouts.
 *
 * Processes of the same code differ here by tens of percent (the bare SDK,
 * identical in both checkouts, shows it), and a slow process is slow in
 * every case. So a case that adds to another of the same process (the stack
 * to the bare SDK of its line) is judged by what it adds, the median over
 * the rounds; a case without one by its lowest median.
 */
import { formatDuration, markdownTable } from './markdown.js';
import { quantile } from './measure.js';

/** One measured case of the in-process suites, as `in-process-main` writes it. */
export interface InProcessRow {
  readonly name: string;
  readonly medianMs: number;
  /** The case of the same process this one adds to. */
  readonly baseline?: string;
  /** The SDK alone: the same code in both checkouts, shown and not judged. */
  readonly sdkOnly?: true;
}

/** One checkout's runs: what it is called in the table, and every round's rows. */
export interface CheckoutRuns {
  readonly label: string;
  readonly rounds: readonly (readonly InProcessRow[])[];
}

/** How much slower a case may get, as a share of its whole median before, before it counts as worse: 10%. */
export const WORSE_BEYOND = 0.1;

/** What one checkout measured of one case over its rounds. */
export interface CaseFigures {
  /** The lowest median: the round least disturbed by the rest of the machine. */
  readonly bestMs: number;
  /** The median over the rounds of what the case added to its baseline in the same round. */
  readonly addedMs?: number | undefined;
  readonly sdkOnly: boolean;
}

/** Each case's figures over the rounds, in the order the first round ran them. */
export function caseFigures(rounds: readonly (readonly InProcessRow[])[]): Map<string, CaseFigures> {
  const medians = new Map<string, number[]>();
  const added = new Map<string, number[]>();
  const sdkOnly = new Set<string>();
  for (const rows of rounds) {
    const inRound = new Map(rows.map((row) => [row.name, row.medianMs]));
    for (const row of rows) {
      medians.set(row.name, [...(medians.get(row.name) ?? []), row.medianMs]);
      if (row.sdkOnly === true) sdkOnly.add(row.name);
      const base = row.baseline === undefined ? undefined : inRound.get(row.baseline);
      if (base !== undefined) added.set(row.name, [...(added.get(row.name) ?? []), row.medianMs - base]);
    }
  }
  return new Map(
    [...medians].map(([name, values]) => {
      const extra = added.get(name);
      return [
        name,
        {
          bestMs: Math.min(...values),
          addedMs:
            extra === undefined
              ? undefined
              : quantile(
                  [...extra].sort((a, b) => a - b),
                  0.5,
                ),
          sdkOnly: sdkOnly.has(name),
        },
      ];
    }),
  );
}

/** One case of the comparison, and whether it got worse by more than {@link WORSE_BEYOND}. */
export interface ComparedRow {
  readonly name: string;
  readonly before: CaseFigures;
  readonly after: CaseFigures;
  /** What got slower, as a share of the case's whole best median before (added cost where there is one). */
  readonly change: number;
  readonly worse: boolean;
}

function judge(name: string, before: CaseFigures, after: CaseFigures): ComparedRow {
  const byAdded = before.addedMs !== undefined && after.addedMs !== undefined;
  const slower = byAdded ? (after.addedMs ?? 0) - (before.addedMs ?? 0) : after.bestMs - before.bestMs;
  const change = slower / before.bestMs;
  return { name, before, after, change, worse: !before.sdkOnly && change > WORSE_BEYOND };
}

/** The cases both checkouts measured, in the order the later one ran them. */
export function compareRows(before: CheckoutRuns, after: CheckoutRuns): ComparedRow[] {
  const old = caseFigures(before.rounds);
  return [...caseFigures(after.rounds)].flatMap(([name, figures]) => {
    const was = old.get(name);
    return was === undefined ? [] : [judge(name, was, figures)];
  });
}

function geometricMean(values: readonly number[]): number {
  return values.length === 0
    ? Number.NaN
    : Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

/**
 * The whole comparison in two figures: the geometric mean over the cases of
 * ours, and over the SDK-alone ones, of the best median after over before.
 * One case moves by tens of percent between processes here; the mean of
 * twenty does not, and the SDK-alone figure shows how far the machine alone
 * moved it.
 */
export function overall(rows: readonly ComparedRow[]): { readonly ours: number; readonly sdkOnly: number } {
  const ratio = (row: ComparedRow) => row.after.bestMs / row.before.bestMs;
  return {
    ours: geometricMean(rows.filter((row) => !row.before.sdkOnly).map(ratio)),
    sdkOnly: geometricMean(rows.filter((row) => row.before.sdkOnly).map(ratio)),
  };
}

function percent(change: number): string {
  return `${change > 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

function added(figures: CaseFigures): string {
  return figures.addedMs === undefined
    ? ''
    : `${figures.addedMs >= 0 ? '+' : '-'}${formatDuration(Math.abs(figures.addedMs))}`;
}

/** The section of BENCHMARKS.md: every shared case, and which (if any) got worse beyond {@link WORSE_BEYOND}. */
export function renderComparison(before: CheckoutRuns, after: CheckoutRuns, context: string): string {
  const rows = compareRows(before, after);
  const worse = rows.filter((row) => row.worse);
  const table = markdownTable(
    [
      'case',
      `${before.label}, best`,
      `${after.label}, best`,
      `${before.label}, adds`,
      `${after.label}, adds`,
      'slower by',
    ],
    rows.map((row) => [
      row.before.sdkOnly ? `${row.name} (the SDK alone)` : row.name,
      formatDuration(row.before.bestMs),
      formatDuration(row.after.bestMs),
      added(row.before),
      added(row.after),
      percent(row.change),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right'],
  );
  const rounds = Math.min(before.rounds.length, after.rounds.length);
  const limit = `${String(WORSE_BEYOND * 100)}%`;
  const { ours, sdkOnly } = overall(rows);
  const mean = `Over the ${String(rows.filter((row) => !row.before.sdkOnly).length)} cases of ours, ${after.label} takes ${ours.toFixed(3)}x the time of ${before.label} (geometric mean of the best medians); the SDK alone, the same code, ${sdkOnly.toFixed(3)}x.`;
  const verdict = [
    `${mean} ${ours <= 1 + WORSE_BEYOND ? `Taken together, no slower by more than ${limit}.` : `Taken together, slower by more than ${limit}.`}`,
    worse.length === 0
      ? `No single case of ours is slower by more than ${limit}.`
      : `Single cases beyond ${limit} in this run: ${worse.map((row) => row.name).join('; ')}.`,
  ].join(' ');
  return [
    '## In-process suites against an earlier commit',
    '',
    context,
    '',
    `Each checkout ran suites 1 and 2 in a process of its own, ${String(rounds)} rounds taken in turn (the order swapped each round). "best" is a case's lowest median over the rounds; "adds" the median over the rounds of what it added to its baseline in the same process (the bare SDK of its line, or the pipeline with no extension). "slower by" is how much more it adds (or, without a baseline, how much higher its best is), as a share of its best before; a case of ours slower by more than ${limit} is named below. The bare SDK rows run the same code in both checkouts: their spread is this machine's noise between processes.`,
    '',
    table,
    '',
    verdict,
  ].join('\n');
}
