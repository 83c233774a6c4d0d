/** A run's outcome for people (the table) and for machines (a seed `ConformanceReport`). */
import type { RunOutcome } from './runner.js';
import type { CheckResult } from './types.js';

/** The version of this kit's checks, reported as `suite_version`. */
export const SUITE_VERSION = '0.1.0';

const MARK: Record<CheckResult['status'], string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', error: 'ERROR' };

function statusLabel(result: CheckResult): string {
  const mark = MARK[result.status];
  if (result.expected === true)
    return result.status === 'passed' ? 'PASS (expected to fail: stale)' : `${mark} (expected)`;
  if (result.status === 'failed' && result.level === 'SHOULD') return 'WARN';
  return mark;
}

/** A plain-text table: extension, check, requirement, result, time; then failure details and a summary line. */
export function renderTable(outcome: RunOutcome): string {
  const header = ['extension', 'check', 'requirement', 'result', 'time'];
  const rows = outcome.results.map((result) => [
    result.extension,
    result.id,
    `${result.requirement} ${result.level}`,
    statusLabel(result),
    `${String(result.durationMs)} ms`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [
    `Server: ${outcome.server.name} ${outcome.server.version} (${outcome.server.era === 'modern' ? '2026-07-28' : 'initialize'} era)`,
    Object.keys(outcome.server.extensions).length === 0
      ? 'No extensions advertised: base checks only.'
      : `Extensions advertised: ${Object.keys(outcome.server.extensions).join(', ')}`,
    '',
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
  ];
  const notable = outcome.results.filter(
    (result) => (result.status === 'failed' || result.status === 'error') && result.message,
  );
  if (notable.length > 0) {
    out.push('', 'Details:');
    for (const result of notable) out.push(`  ${result.id} (${result.requirement}): ${result.message ?? ''}`);
  }
  if (outcome.untested.length > 0) out.push('', `No checks in this kit for: ${outcome.untested.join(', ')}`);
  if (outcome.staleExpectations.length > 0) {
    out.push(
      '',
      `Listed as expected failures but passing (remove them from the file): ${outcome.staleExpectations.join(', ')}`,
    );
  }
  const summary = summarize(outcome.results);
  out.push(
    '',
    `${String(summary.passed)} passed, ${String(summary.failed)} failed, ${String(summary.skipped)} skipped` +
      `${summary.warnings > 0 ? `, ${String(summary.warnings)} SHOULD warning(s)` : ''}: ${outcome.exitCode === 0 ? 'conforms' : 'does not conform'}`,
  );
  return out.join('\n');
}

function summarize(results: readonly CheckResult[]): {
  passed: number;
  failed: number;
  skipped: number;
  warnings: number;
} {
  return {
    passed: results.filter((result) => result.status === 'passed').length,
    failed: results.filter(
      (result) => (result.status === 'failed' || result.status === 'error') && result.level === 'MUST',
    ).length,
    skipped: results.filter((result) => result.status === 'skipped').length,
    warnings: results.filter((result) => result.status === 'failed' && result.level === 'SHOULD').length,
  };
}

/** The run as a `ConformanceReport` (seed `conformance.schema.json`), with each result's requirement and level added. */
export function toConformanceReport(outcome: RunOutcome): Record<string, unknown> {
  const summary = summarize(outcome.results);
  return {
    server_name: outcome.server.name,
    server_version: outcome.server.version,
    suite_version: SUITE_VERSION,
    tested_at: outcome.startedAt.toISOString(),
    results: outcome.results.map((result) => ({
      test_id: result.id,
      status: result.status,
      ...(result.message === undefined ? {} : { message: result.message }),
      duration_ms: result.durationMs,
      extension: result.extension,
      requirement: result.requirement,
      level: result.level,
      ...(result.expected === true ? { expected_failure: true } : {}),
    })),
    summary: { passed: summary.passed, failed: summary.failed, skipped: summary.skipped },
  };
}
