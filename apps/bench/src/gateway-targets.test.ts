// The gateway section's targets, read from made-up rows: each a ratio to a reference of the same run.
import { describe, expect, it } from 'vitest';
import type { GatewayResult, GatewayRow } from './gateway.js';
import { renderGateway } from './gateway-report.js';
import type { GatewayPath } from './gateway-setup.js';
import { gatewayTargets } from './gateway-targets.js';
import type { Measurement } from './measure.js';

function measurement(medianMs: number, opsPerSec: number): Measurement {
  return { name: 'case', medianMs, p99Ms: medianMs * 3, meanMs: medianMs, opsPerSec, samples: 100 };
}

/** Median at 1 in flight and calls/s at 16 of each path; the other two figures follow from them. */
type Figures = Partial<Record<GatewayPath, readonly [number, number]>>;

/** A run like one on this machine: (d) adds 0.33 ms and keeps 79%, (f) 1,644 calls/s. */
const BASE: Figures = {
  direct: [1, 2000],
  plain: [1.9, 1300],
  policy: [2.3, 1150],
  relay: [1.33, 1580],
  'sdk-relay': [3.2, 900],
  proxy: [2.15, 1644],
  'stdio-plain': [0.9, 2000],
  'stdio-policy': [1.5, 1700],
};

function result(changes: Figures = {}, skipped?: GatewayResult['skipped']): GatewayResult {
  const figures = { ...BASE, ...changes };
  const rows: GatewayRow[] = [];
  for (const inFlight of [1, 16])
    for (const [path, [median, rate]] of Object.entries(figures) as [GatewayPath, readonly [number, number]][])
      rows.push({
        path,
        inFlight,
        measurement: inFlight === 1 ? measurement(median, 1000 / median) : measurement(median * 8, rate),
      });
  return { rows, skipped, concurrency: [1, 16], rounds: 3, warmupCalls: 2000 };
}

function outcomes(run: GatewayResult): [boolean, string][] {
  return gatewayTargets(run).map((target) => [target.met, target.detail]);
}

describe('the gateway targets', () => {
  it('are met by a run within every ratio, each detail saying the measured figures', () => {
    expect(outcomes(result())).toEqual([
      [true, '+900 µs against +330 µs (2.73x)'],
      [true, '65%'],
      [true, '+400 µs'],
      [true, '88%'],
      [true, '1.03x (1,700 against 1,644 calls/s)'],
      [true, '1.22x (2,000 against 1,644 calls/s)'],
    ]);
  });

  it('are not met by the run that set them: (b) adding 1.17 ms and keeping 45% of direct calls/s', () => {
    const run = result({
      plain: [2.17, 900],
      policy: [2.8, 700],
      'stdio-plain': [0.9, 1687],
      'stdio-policy': [1.51, 1226],
    });
    expect(outcomes(run)).toEqual([
      [false, '+1.17 ms against +330 µs (3.55x)'],
      [false, '45%'],
      [false, '+630 µs'],
      [false, '78%'],
      [false, '0.75x (1,226 against 1,644 calls/s)'],
      [false, '1.03x (1,687 against 1,644 calls/s)'],
    ]);
  });

  it('hold at their bounds: exactly 3x the relay, 60%, 0.5 ms, 85%, 1x and 1.2x mcp-proxy', () => {
    const run = result({
      relay: [1.5, 1580],
      plain: [2.5, 1200],
      policy: [3, 1020],
      'stdio-plain': [0.9, 1972.8],
      'stdio-policy': [1.5, 1644],
    });
    expect(gatewayTargets(run).map((target) => target.met)).toEqual([true, true, true, true, true, true]);
  });

  it('are not met when a path is missing, and say it was not measured', () => {
    const run = result();
    const without = { ...run, rows: run.rows.filter((row) => row.path !== 'proxy' && row.path !== 'relay') };
    const targets = gatewayTargets(without);
    expect([targets[0], targets[4], targets[5]].map((target) => [target?.met, target?.detail])).toEqual([
      [false, 'not measured'],
      [false, 'not measured'],
      [false, 'not measured'],
    ]);
  });
});

describe('the gateway section', () => {
  it('writes the HTTP paths against direct calls and the stdio paths against mcp-proxy', () => {
    const { markdown } = renderGateway(result());
    expect(markdown).toContain(
      '| (b) through the gateway, no policy | 1.90 ms | 5.70 ms | +900 µs | 1,300 | 65% | 15.2 ms | 45.6 ms |',
    );
    expect(markdown).toContain('| (a) direct to the upstream | 1.00 ms | 3.00 ms | baseline | 2,000 | baseline |');
    expect(markdown).toContain('| (f) `mcp-proxy` (reference) | 2.15 ms | 6.45 ms | baseline | 1,644 | baseline |');
    expect(markdown).toContain(
      '| (g) through the gateway, no policy | 900 µs | 2.70 ms | -1.25 ms | 2,000 | 122% | 7.20 ms | 21.6 ms |',
    );
    expect(markdown.indexOf('| (f) `mcp-proxy`')).toBeGreaterThan(markdown.indexOf('### In front of a stdio upstream'));
  });

  it('states each target with its outcome, then the references and why ContextForge is missing', () => {
    const { markdown } = renderGateway(result({}, { contextforge: 'it needs Python 3.12' }));
    expect(markdown).toContain(
      '- **Met**: gateway with the full policy (c), 16 in flight: keeps at least 85% of the calls/s of the gateway with no policy (b) (measured: 88%).',
    );
    expect(markdown.trimEnd()).toMatch(
      /\n\nFor reference, the bare SDK relay adds \+2\.20 ms median at 1 in flight and keeps 45% of direct calls\/s at 16 in flight; the raw HTTP relay adds \+330 µs and keeps 79%, so the no-policy gateway may add up to \+990 µs in this run\. ContextForge is not measured: it needs Python 3\.12\.$/,
    );
  });

  it('writes a ContextForge row and its ratios when it was measured', () => {
    const { markdown } = renderGateway(result({ contextforge: [6, 411] }));
    expect(markdown).toContain('| (i) ContextForge (reference) | 6.00 ms |');
    expect(markdown).toContain('ContextForge completes 0.25x the calls/s of `mcp-proxy` at 16 in flight');
  });

  it('writes the row of its stdio bridge alone and its ratio when it was measured too', () => {
    const { markdown } = renderGateway(result({ contextforge: [6, 411], 'contextforge-bridge': [3, 822] }));
    expect(markdown).toContain("| (j) ContextForge's stdio bridge alone (reference) | 3.00 ms |");
    expect(markdown.trimEnd()).toMatch(/Its stdio bridge alone completes 0\.50x the calls\/s of `mcp-proxy`\.$/);
  });
});
