import { describe, expect, it } from 'vitest';
import type { FullStackResult, HttpLayerRow, HttpRow, InProcessRow, LayerRow } from './full-stack.js';
import { HTTP_TARGET_SHARE, IN_PROCESS_TARGET_MS, renderFullStack } from './full-stack-report.js';
import type { Measurement } from './measure.js';
import { ADAPTER, BARE, FULL } from './stack.js';

function measurement(medianMs: number, opsPerSec = 1000 / medianMs): Measurement {
  return { name: 'case', medianMs, p99Ms: medianMs * 4, meanMs: medianMs, opsPerSec, samples: 100 };
}

const memory = { heapBytes: 2048, rssBytes: -4096 };

function result(fullInProcessMs: number, fullHttpOps: number): FullStackResult {
  const inProcess: InProcessRow[] = [
    { line: 'v2', stack: BARE, measurement: measurement(0.02), memory },
    { line: 'v2', stack: ADAPTER, measurement: measurement(0.025), memory },
    { line: 'v2', stack: FULL, measurement: measurement(fullInProcessMs), memory },
  ];
  const layers: LayerRow[] = [
    { stack: ADAPTER, measurement: measurement(0.025) },
    { stack: { kind: 'first', count: 1 }, measurement: measurement(0.03) },
    { stack: { kind: 'first', count: 2 }, measurement: measurement(0.07) },
  ];
  const http: HttpRow[] = [
    { era: 'legacy', stack: 'bare', inFlight: 4, measurement: measurement(2, 1000) },
    { era: 'legacy', stack: 'full', inFlight: 4, measurement: measurement(2.2, fullHttpOps) },
  ];
  const httpLayers: HttpLayerRow[] = [
    { stack: ADAPTER, measurement: measurement(10, 800), bare: measurement(10, 1000) },
    { stack: { kind: 'first', count: 1 }, measurement: measurement(10, 400), bare: measurement(10, 500) },
  ];
  return {
    inProcess,
    layers,
    http,
    httpMemory: [{ era: 'legacy', stack: 'full', inFlight: 4, server: memory, client: memory }],
    httpLayers,
    httpLayerInFlight: 4,
    rounds: 2,
    httpRounds: 3,
    memoryCalls: 1000,
    concurrency: [4],
  };
}

describe('the full-stack section', () => {
  it('meets the in-process target only under 100 µs added to the bare median', () => {
    expect(IN_PROCESS_TARGET_MS).toBe(0.1);
    const under = renderFullStack(result(0.1, 950), ['@ext/a', '@ext/b']);
    const over = renderFullStack(result(0.121, 950), ['@ext/a', '@ext/b']);
    const inProcess = (section: typeof under) =>
      section.targets.find((target) => target.name.includes('InMemoryTransport'));
    expect(inProcess(under)).toMatchObject({ met: true, detail: '+80.0 µs' });
    expect(inProcess(over)).toMatchObject({ met: false, detail: '+101 µs' });
  });

  it('meets the HTTP target at 90% of bare calls/s, not below', () => {
    const at = renderFullStack(result(0.05, 1000 * HTTP_TARGET_SHARE), ['@ext/a', '@ext/b']);
    const below = renderFullStack(result(0.05, 1000 * HTTP_TARGET_SHARE - 1), ['@ext/a', '@ext/b']);
    const http = (section: typeof at) => section.targets.find((target) => target.name.startsWith('HTTP'));
    expect(http(at)).toMatchObject({ met: true, detail: '90%' });
    expect(http(below)?.met).toBe(false);
    expect(below.markdown).toContain('**Not met**: HTTP, 2025-11-25 era, 4 in flight');
  });

  it('attributes to each layer its increase over the row before, and names the layers', () => {
    const section = renderFullStack(result(0.05, 1000), ['@ext/a', '@ext/b']);
    expect(section.markdown).toContain('| + `@ext/a` | 30.0 µs | 120 µs | +5.00 µs |');
    expect(section.markdown).toContain('| + `@ext/b` | 70.0 µs | 280 µs | +40.0 µs |');
    expect(section.markdown).toContain('| all layers, over the adapters |  |  | +45.0 µs |');
    expect(section.markdown).toContain('`@ext/a`, `@ext/b`');
  });

  it('compares each HTTP row with the bare SDK measured just before it, and each step with the step before', () => {
    const section = renderFullStack(result(0.05, 1000), ['@ext/a', '@ext/b']);
    expect(section.markdown).toContain('| core adapters, nothing composed | 800 | 1,000 | 80% | +250 µs | baseline |');
    // The machine slowed down: bare fell to 500 calls/s; 400 is still 80% of it.
    expect(section.markdown).toContain('| + `@ext/a` | 400 | 500 | 80% | +500 µs | +250 µs |');
  });

  it('shows memory per 1,000 calls with its sign', () => {
    const section = renderFullStack(result(0.05, 1000), ['@ext/a']);
    expect(section.markdown).toContain('| 2.0 KiB | -4.0 KiB |');
  });
});
