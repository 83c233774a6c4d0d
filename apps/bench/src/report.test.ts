import { describe, expect, it } from 'vitest';
import { formatDuration, formatOverhead, formatRate, markdownTable, verdict } from './markdown.js';
import { quantile, type Measurement } from './measure.js';
import { keepForeignSections, renderReport, type Report } from './report.js';

function measurement(medianMs: number): Measurement {
  return {
    name: 'case',
    medianMs,
    p99Ms: medianMs * 3,
    meanMs: medianMs * 1.2,
    opsPerSec: 1000 / (medianMs * 1.2),
    samples: 1000,
  };
}

function report(sqliteMedianMs: number): Report {
  const baseline = { label: 'no extension', store: 'memory', idempotent: false, measurement: measurement(0.001) };
  const telemetryOff = {
    label: 'no extension, telemetry off (`telemetry: false`)',
    store: 'memory',
    idempotent: false,
    measurement: measurement(0.00085),
  };
  return {
    environment: {
      date: '2026-01-02T03:04:05.000Z',
      node: 'v20.20.2',
      cpu: 'Test CPU',
      cores: 2,
      os: 'Linux 6 x64',
      sdks: '@modelcontextprotocol/sdk 1.32.2',
      quick: true,
      timeMs: 300,
      warmupMs: 100,
      redis: undefined,
      command: 'BENCH_QUICK=1 pnpm bench',
      load: '0.50 0.40 0.30 at the start, 0.60 0.45 0.31 at the end (2 cores)',
    },
    roundTrips: [
      {
        line: 'v1',
        rows: [
          { scenario: 'bare', measurement: measurement(0.01) },
          { scenario: 'stack', measurement: measurement(0.015) },
          { scenario: 'stack-key-sqlite', measurement: measurement(0.1) },
        ],
      },
    ],
    middleware: {
      baseline,
      rows: [
        baseline,
        telemetryOff,
        {
          label: 'idempotency, fresh key per call',
          store: 'SQLite',
          idempotent: true,
          measurement: measurement(sqliteMedianMs),
        },
      ],
      telemetry: { on: baseline, off: telemetryOff },
      telemetryRounds: 3,
    },
    stores: [{ store: 'memory', op: 'get', sequential: measurement(0.002), concurrent: measurement(0.1) }],
    inFlight: 64,
    targetMs: 0.2,
    telemetryTargetMs: 0.001,
    sqliteStore: 'SQLite',
    sections: [],
  };
}

describe('formatting', () => {
  it('picks µs, ms or s and keeps three significant digits', () => {
    expect(formatDuration(0.0123)).toBe('12.3 µs');
    expect(formatDuration(0.000456)).toBe('0.46 µs');
    expect(formatDuration(0.25)).toBe('250 µs');
    expect(formatDuration(1.5)).toBe('1.50 ms');
    expect(formatDuration(2500)).toBe('2.50 s');
    expect(formatDuration(Number.NaN)).toBe('n/a');
  });

  it('rounds rates with thousands separators, small rates with a decimal', () => {
    expect(formatRate(12345.6)).toBe('12,346');
    expect(formatRate(42.25)).toBe('42.3');
  });

  it('signs overheads and adds the share of the baseline only when given', () => {
    expect(formatOverhead(0.002, 0.01)).toBe('+2.00 µs (+20%)');
    expect(formatOverhead(-0.001, 0.01)).toBe('-1.00 µs (-10%)');
    expect(formatOverhead(0.05)).toBe('+50.0 µs');
  });

  it('renders an aligned markdown table and escapes pipes', () => {
    expect(markdownTable(['a', 'b'], [['x|y', '1']], ['left', 'right'])).toBe('| a | b |\n|---|---:|\n| x\\|y | 1 |');
  });

  it('states the target as met only below it', () => {
    expect(verdict(0.19, 0.2)).toBe('met');
    expect(verdict(0.2, 0.2)).toBe('not met');
    expect(verdict(Number.NaN, 0.2)).toBe('not measured');
  });

  it('takes nearest-rank quantiles', () => {
    const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('renderReport', () => {
  it('reports the environment, the overhead against the bare SDK and the verdict', () => {
    const text = renderReport(report(0.051));
    expect(text).toContain('| Node | v20.20.2 |');
    expect(text).toContain('Test CPU (2 logical cores)');
    expect(text).toContain(
      '| (c) errors + idempotency + transactions, no key | 15.0 µs | 45.0 µs | 55,556 | +5.00 µs (+50%) |',
    );
    expect(text).toContain(
      '**Target met: the idempotency layer on the SQLite store adds 50.0 µs median per call in process (target: under 200 µs).**',
    );
    expect(text).toContain('SDK v1 +85.0 µs');
    expect(text).toContain('not measured (`REDIS_URL` unset)');
  });

  it('states what telemetry adds with no OpenTelemetry SDK registered, against its 1 µs target', () => {
    const text = renderReport(report(0.051));
    expect(text).toContain('| no extension, telemetry off (`telemetry: false`) | - | 0.85 µs |');
    expect(text).toContain(
      "**Target met: with `@opentelemetry/api` installed and no SDK registered, the core's telemetry adds +0.15 µs median per call (1.00 µs on, 0.85 µs with `telemetry: false`; target: under 1.00 µs).**",
    );
    expect(text).toContain(
      '| 2 | OpenTelemetry with no SDK registered adds under 1.00 µs median per pipeline call | +0.15 µs | met |',
    );
    expect(text).toContain('best of\n3 alternating rounds each');
  });

  it('says plainly when the target is missed', () => {
    expect(renderReport(report(0.301))).toContain(
      '**Target not met: the idempotency layer on the SQLite store adds 300 µs',
    );
  });
});

describe('keepForeignSections', () => {
  it('carries sections other checks wrote over to the new report', () => {
    const previous = '# Benchmarks\nold numbers\n\n<!-- sizes:start -->\n| pkg | size |\n<!-- sizes:end -->\n';
    const next = keepForeignSections(previous, '# Benchmarks\nnew numbers\n');
    expect(next).toContain('new numbers');
    expect(next).not.toContain('old numbers');
    expect(next).toContain('<!-- sizes:start -->\n| pkg | size |\n<!-- sizes:end -->');
  });

  it('leaves a report alone when the previous file had no such section', () => {
    expect(keepForeignSections('# old', '# new\n')).toBe('# new\n');
  });
});

describe('extra sections', () => {
  const section = {
    title: 'Transfers',
    markdown: 'Some numbers.',
    targets: [{ name: 'at least 3x faster', met: false, detail: '2.1x' }],
  };

  it('numbers them after the fixed three and lists their targets with the fixed one', () => {
    const text = renderReport({ ...report(0.05), sections: [section] });
    expect(text).toContain('## 4. Transfers\n\nSome numbers.');
    expect(text).toContain('| 4 | at least 3x faster | 2.1x | not met |');
    expect(text).toContain(
      '| 2 | idempotency on SQLite adds under 200 µs median per call in process | +49.0 µs | met |',
    );
  });

  it('states the command and the load', () => {
    const text = renderReport(report(0.05));
    expect(text).toContain('| command | `BENCH_QUICK=1 pnpm bench` |');
    expect(text).toContain('| load average | 0.50 0.40 0.30 at the start');
  });
});
