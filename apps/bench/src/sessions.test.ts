import { describe, expect, it } from 'vitest';
import { renderSessions, withSessionsSection, type SessionsRun } from './sessions.js';

const MIB = 1024 * 1024;

function run(line: 'v1' | 'v2', max: number | undefined, rss: readonly number[]): SessionsRun {
  const samples = rss.map((value, index) => ({ sent: index * 1_000, rss: value * MIB, heapUsed: value * MIB }));
  return {
    line,
    max,
    count: (rss.length - 1) * 1_000,
    answer: { type: 'done', samples, statuses: { '200': 1_000, '503': (rss.length - 2) * 1_000 }, elapsedMs: 1_500 },
  };
}

describe('the sessions section', () => {
  it('shows each run: the limit, what was opened and refused, and RSS before, when full and at the end', () => {
    const section = renderSessions(
      [run('v2', undefined, [100, 130, 131, 131]), run('v1', 5_001, [100, 250])],
      'a machine',
      '2026-01-01',
    );
    expect(section).toMatch(/^## Legacy-era sessions: memory/);
    expect(section).toContain(
      '| SDK v2 (2025-11-25 era) | default (1,000) | 3,000 | 1,000 / 2,000 | 100.0 MiB | 130.0 MiB | 131.0 MiB | 131.0 MiB |',
    );
    expect(section).toContain('| SDK v1 | raised to 5,001 | 1,000 | 1,000 / 0 | 100.0 MiB | 250.0 MiB | 250.0 MiB |');
    expect(section).toContain('Machine: a machine.');
  });

  it('replaces its own marked section and leaves the rest of BENCHMARKS.md alone', () => {
    const first = withSessionsSection(
      '# Benchmarks\n\n<!-- sizes:start -->\nsizes\n<!-- sizes:end -->\n',
      '## S\n\none',
    );
    expect(first).toBe(
      '# Benchmarks\n\n<!-- sizes:start -->\nsizes\n<!-- sizes:end -->\n\n<!-- sessions:start -->\n## S\n\none\n<!-- sessions:end -->\n',
    );
    const second = withSessionsSection(first, '## S\n\ntwo');
    expect(second).toBe(first.replace('one', 'two'));
  });
});
