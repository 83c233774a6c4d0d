/** How the benchmarks write their numbers: durations, rates, sizes, overheads, markdown tables, and what a section holds. */

/** One section of BENCHMARKS.md, produced by a benchmark module. */
export interface BenchSection {
  /** The section heading, without `#` or number. */
  readonly title: string;
  /** The section body in markdown: how it was measured, the numbers, the verdict. */
  readonly markdown: string;
  /** Each stated target and whether this run met it. */
  readonly targets: readonly BenchTarget[];
}

export interface BenchTarget {
  readonly name: string;
  readonly met: boolean;
  /** The measured figure, e.g. `4.2x` or `+38 µs`. */
  readonly detail: string;
}

function significant(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** `0.0123` → `12.3 µs`, `1.5` → `1.50 ms`, `2500` → `2.50 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  const abs = Math.abs(ms);
  if (abs < 1) return `${significant(ms * 1000)} µs`;
  if (abs < 1000) return `${significant(ms)} ms`;
  return `${significant(ms / 1000)} s`;
}

/** `12345.6` → `12,346`; small rates keep a decimal. */
export function formatRate(opsPerSec: number): string {
  if (!Number.isFinite(opsPerSec)) return 'n/a';
  if (opsPerSec >= 100) return Math.round(opsPerSec).toLocaleString('en-US');
  return opsPerSec.toFixed(1);
}

const MIB = 1024 * 1024;

/** `1536` → `1.5 KiB`, `-2048` → `-2.0 KiB`; binary units. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  const sign = bytes < 0 ? '-' : '';
  const abs = Math.abs(bytes);
  if (abs >= 1024 * MIB) return `${sign}${(abs / (1024 * MIB)).toFixed(2)} GiB`;
  if (abs >= MIB) return `${sign}${(abs / MIB).toFixed(1)} MiB`;
  if (abs >= 1024) return `${sign}${(abs / 1024).toFixed(1)} KiB`;
  return `${sign}${Math.round(abs).toString()} B`;
}

/** A difference of medians, signed, with its share of the baseline when given: `+12.3 µs (+8%)`. */
export function formatOverhead(ms: number, baselineMs?: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  const sign = ms < 0 ? '-' : '+';
  const percent =
    baselineMs !== undefined && baselineMs > 0
      ? ` (${sign}${Math.round((Math.abs(ms) / baselineMs) * 100).toString()}%)`
      : '';
  return `${sign}${formatDuration(Math.abs(ms))}${percent}`;
}

export type Align = 'left' | 'right';

/** A GitHub-flavoured markdown table; `|` inside a cell is escaped. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const rule = headers.map((_, index) => (align[index] === 'right' ? '---:' : '---'));
  return [line(headers), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
}

/** Whether the measured extra latency stays under the target, in plain words. */
export function verdict(extraMs: number, targetMs: number): string {
  if (!Number.isFinite(extraMs)) return 'not measured';
  return extraMs < targetMs ? 'met' : 'not met';
}

/** `met` or `not met`, for a target line. */
export function outcome(target: { readonly met: boolean } | undefined): string {
  return target?.met === true ? 'met' : 'not met';
}

/**
 * `previous` (BENCHMARKS.md) with the section between `<!-- name:start -->`
 * and `<!-- name:end -->` replaced by `section`, or `section` added at the
 * end: a suite that also runs alone writes its own section, which a full
 * `pnpm bench` run keeps.
 */
export function withMarkedSection(previous: string, name: string, section: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const marked = `${start}\n${section.trim()}\n${end}`;
  const at = previous.indexOf(start);
  const until = previous.indexOf(end);
  if (at === -1 || until < at) return `${previous.trimEnd()}\n\n${marked}\n`;
  return `${previous.slice(0, at)}${marked}${previous.slice(until + end.length)}`;
}
