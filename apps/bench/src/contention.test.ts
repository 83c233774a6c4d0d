import { describe, expect, it } from 'vitest';
import { contentionMarkdown, renderContention, type ContentionRow } from './contention.js';
import { withMarkedSection } from './markdown.js';

const row = (overrides: Partial<ContentionRow>): ContentionRow => ({
  commandTimeoutMs: 500,
  calls: 200,
  executions: 1,
  replays: 199,
  inProgress: 0,
  unavailable: 0,
  otherErrors: {},
  elapsedMs: 2300,
  maxLoopDelayMs: 960,
  outagesLogged: 0,
  load: '3.79',
  ...overrides,
});

describe('the contention section', () => {
  it('meets its targets only with exactly one execution and no outage', () => {
    const good = renderContention([row({})], 200);
    expect(good.targets.map((target) => target.met)).toEqual([true, true]);
    expect(good.markdown).toContain('| 500 ms | 200 | 1 | 199 | 0 | 0 | 0 | 0 | 960 ms | 2.30 s | 3.79 |');
    const twice = renderContention([row({ executions: 2 })], 200);
    expect(twice.targets.map((target) => target.met)).toEqual([false, true]);
    const refused = renderContention([row({ unavailable: 3, otherErrors: { IDEMPOTENCY_IN_PROGRESS: 2 } })], 200);
    expect(refused.targets.map((target) => target.met)).toEqual([true, false]);
    expect(refused.markdown).toContain('2 `IDEMPOTENCY_IN_PROGRESS`');
    expect(renderContention([row({ outagesLogged: 1 })], 200).targets[1]?.met).toBe(false);
  });

  it('says why there are no rows without REDIS_URL', () => {
    const section = renderContention([], 200);
    expect(section.markdown).toContain('`REDIS_URL` was unset');
    expect(section.targets).toEqual([]);
  });
});

describe('the contention section in BENCHMARKS.md', () => {
  it('carries its verdicts and replaces only itself', () => {
    const text = contentionMarkdown([row({ executions: 2 })], 200, 'a machine', '2026-11-27');
    expect(text).toContain(
      '- **missed**: duplicate writes, commandTimeoutMs 500: exactly one execution (2 execution(s))',
    );
    expect(text).toContain('- met: duplicate writes, commandTimeoutMs 500: no SERVICE_UNAVAILABLE');
    const file = withMarkedSection('# Benchmarks\n\nkept\n', 'contention', text);
    const again = withMarkedSection(file, 'contention', 'new');
    expect(again).toBe('# Benchmarks\n\nkept\n\n<!-- contention:start -->\nnew\n<!-- contention:end -->\n');
  });
});
