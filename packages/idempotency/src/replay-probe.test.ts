import { StoreUnavailableError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { offerReplay, willReplay } from './replay-probe.js';

describe('the replay probe a gate asks (IDEM-17)', () => {
  const call = { name: 'tool', arguments: { n: 1 }, meta: {} };
  const gateContext = () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => void warnings.push(message) };
    return { ctx: { locals: new Map<symbol, unknown>(), logger } as never, warnings };
  };

  it('answers what the offered probe says about the call', async () => {
    const { ctx } = gateContext();
    const seen: unknown[] = [];
    offerReplay(ctx, (probed) => {
      seen.push(probed);
      return Promise.resolve(true);
    });
    expect(await willReplay(ctx, call)).toBe(true);
    expect(seen).toEqual([call]);
  });

  it('no probe, or a probe that throws, is no replay; a throw other than a store outage is logged', async () => {
    const { ctx, warnings } = gateContext();
    expect(await willReplay(ctx, call)).toBe(false);
    offerReplay(ctx, () => Promise.reject(new StoreUnavailableError()));
    expect(await willReplay(ctx, call)).toBe(false);
    expect(warnings).toEqual([]);
    offerReplay(ctx, () => Promise.reject(new Error('broken')));
    expect(await willReplay(ctx, call)).toBe(false);
    expect(warnings).toEqual(['idempotency: a replay probe failed; the call is gated as usual']);
  });

  it('is shared by two installed copies of the package (a global symbol)', async () => {
    const { ctx } = gateContext();
    (ctx as { locals: Map<symbol, unknown> }).locals.set(Symbol.for('io.github.mcp-ext/idempotency/replay'), () =>
      Promise.resolve(true),
    );
    expect(await willReplay(ctx, call)).toBe(true);
  });
});
