import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { describe, expect, it } from 'vitest';
import { FAULTS as PLANTABLE, variantsServer } from '../../fixtures/variants-server.mjs';
import type { Target } from '../probe.js';
import { runConformance, type RunOutcome } from '../runner.js';
import { contentNegotiationSuite } from './content-negotiation.js';
import { resultVariantChecks } from './result-variants.js';

/** Runs `body` against the fixture (with `fault` planted) served over HTTP in-process, closed after. */
async function withServer<T>(fault: string | undefined, body: (target: Target) => Promise<T>): Promise<T> {
  const { createServer } = variantsServer(fault);
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    return await body({ kind: 'http', url: String(listening.url) });
  } finally {
    await listening.close();
  }
}

function run(target: Target, protocolVersion = '2026-07-28'): Promise<RunOutcome> {
  return runConformance({ target, protocolVersion, extensions: ['content-negotiation'] });
}

const VARIANT_CHECKS = resultVariantChecks.map((check) => check.id);
const negotiationResults = (outcome: RunOutcome) =>
  outcome.results.filter((result) => result.extension === 'content-negotiation');
const statusOf = (outcome: RunOutcome, status: string): string[] =>
  negotiationResults(outcome)
    .filter((result) => result.status === status)
    .map((result) => result.id);

/** Planted faults (`variants-server.mjs --fault <name>`), each with the checks it must fail and those it leaves skipped. */
const FAULTS: Record<string, { fails: string[]; skips?: string[] }> = {
  // With no valid declaration there is no tool the other two checks may call.
  'no-assistant-content': {
    fails: ['content-negotiation/variants-declared'],
    skips: ['content-negotiation/variants-outputs', 'content-negotiation/variants-undeclared-refused'],
  },
  'unrequested-output': { fails: ['content-negotiation/variants-outputs'] },
  substitutes: { fails: ['content-negotiation/variants-undeclared-refused'] },
};

describe('the SEP-3279 result-variant checks of the content-negotiation suite', () => {
  it('are part of the suite', () => {
    expect(contentNegotiationSuite.checks.map((check) => check.id)).toEqual(expect.arrayContaining(VARIANT_CHECKS));
  });

  it.each(['2026-07-28', '2025-11-25'])('pass, with every other check of the suite, on %s', async (version) => {
    const outcome = await withServer(undefined, (target) => run(target, version));
    expect(negotiationResults(outcome).filter((result) => result.status !== 'passed')).toEqual([]);
    expect(statusOf(outcome, 'passed')).toEqual(expect.arrayContaining(VARIANT_CHECKS));
    expect(outcome.exitCode).toBe(0);
  });

  it('plants every fault the fixture knows', () => {
    expect(Object.keys(FAULTS).sort()).toEqual(Object.keys(PLANTABLE).sort());
  });

  it.each(Object.entries(FAULTS))('fails exactly the checks a planted fault breaks: %s', async (fault, planted) => {
    const outcome = await withServer(fault, (target) => run(target));
    expect(statusOf(outcome, 'error')).toEqual([]);
    expect(statusOf(outcome, 'failed').sort()).toEqual([...planted.fails].sort());
    expect(statusOf(outcome, 'skipped').sort()).toEqual([...(planted.skips ?? [])].sort());
    expect(outcome.exitCode).toBe(1);
  });
});
