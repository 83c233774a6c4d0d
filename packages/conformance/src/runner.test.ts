import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seedValidators } from '@ext/core/seed-schemas';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { describe, expect, it } from 'vitest';
import { notesServer } from '../fixtures/server.mjs';
import { ALL_SUITES } from './checks/index.js';
import { parseExpectedFailures } from './expected.js';
import type { Target } from './probe.js';
import { renderTable, toConformanceReport } from './report.js';
import { runConformance, type RunOptions, type RunOutcome } from './runner.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const ERAS = ['2026-07-28', '2025-11-25'] as const;

/**
 * Runs `body` against a fresh notes server served over HTTP in-process, closed
 * after: a stdio server costs a process start per connection, and the kit
 * connects once per check (the CLI's test runs it over stdio).
 */
async function withNotes<T>(broken: boolean, body: (target: Target) => Promise<T>): Promise<T> {
  const { createServer, close } = await notesServer({ broken });
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    return await body({ kind: 'http', url: String(listening.url) });
  } finally {
    await listening.close();
    await close();
  }
}

const runNotes = (options: Omit<RunOptions, 'target'>, broken = false): Promise<RunOutcome> =>
  withNotes(broken, (target) => runConformance({ ...options, target }));

describe.each(ERAS)('against a conforming server on %s', (protocolVersion) => {
  it('every check passes when effects are allowed, and the JSON report is a valid ConformanceReport', async () => {
    const outcome = await runNotes({ protocolVersion, allowEffects: true });
    expect(outcome.server.era).toBe(protocolVersion === '2026-07-28' ? 'modern' : 'legacy');
    expect(outcome.results.filter((result) => result.status !== 'passed')).toEqual([]);
    // The fixture composes every extension the kit has a suite for, so each suite runs and passes, but tasks:
    // its checks need the 2026-07-28 era and a tool named with --task-tool (checks/tasks.test.ts serves one);
    // tool approval, which needs calls held for an operator (checks/tool-approval.test.ts serves them); and the
    // events draft, which the fixture does not opt into (checks/events-sketch.test.ts serves it).
    const elsewhere = ['tasks', 'tool-approval', 'events-sketch'];
    expect(new Set(outcome.results.map((result) => result.extension))).toEqual(
      new Set(ALL_SUITES.map((suite) => suite.extension).filter((name) => !elsewhere.includes(name))),
    );
    expect(outcome.exitCode).toBe(0);
    const report = toConformanceReport(outcome);
    const check = seedValidators().check('conformance', 'ConformanceReport');
    expect(check(report)).toEqual({ valid: true, errors: '' });
    expect(renderTable(outcome)).toMatch(/conforms$/);
  });
});

describe('what the kit runs', () => {
  it('skips the checks that execute a tool with effects unless they are allowed', async () => {
    const outcome = await runNotes({ protocolVersion: '2026-07-28' });
    const skipped = outcome.results.filter((result) => result.status === 'skipped');
    expect(skipped.map((result) => result.id).sort()).toEqual([
      'confirmation/replay-unasked',
      'confirmation/token-single-use',
      'idempotency/conflict',
      'idempotency/replay',
    ]);
    expect(skipped[0]?.message).toMatch(/--allow-effects/);
    expect(outcome.exitCode).toBe(0);
  });

  it('tests only the selected extensions, and always the base checks', async () => {
    const outcome = await runNotes({ extensions: ['errors'] });
    expect(new Set(outcome.results.map((result) => result.extension))).toEqual(new Set(['base', 'errors']));
  });

  it('reports "no extensions advertised" for a plain SDK server and passes it', async () => {
    const outcome = await runConformance({
      target: { kind: 'stdio', command: process.execPath, args: [fixture('plain-server.mjs')] },
    });
    expect(outcome.server.extensions).toEqual({});
    expect(outcome.results.every((result) => result.extension === 'base' && result.status === 'passed')).toBe(true);
    expect(outcome.exitCode).toBe(0);
    expect(renderTable(outcome)).toContain('No extensions advertised');
  });
});

describe('against the broken fixture (one MUST of each suite violated on purpose)', () => {
  const planted = parseExpectedFailures(readFileSync(fixture('broken-expected.yml'), 'utf8'));

  it.each(ERAS)('flags exactly the planted failures on %s', async (protocolVersion) => {
    const outcome = await runNotes({ protocolVersion, allowEffects: true }, true);
    const failed = outcome.results
      .filter((result) => result.status === 'failed' || result.status === 'error')
      .map((result) => result.id);
    expect(new Set(failed)).toEqual(planted);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.untested).toEqual(['io.modelcontextprotocol/made-up']);
  });

  it('passes once the planted failures are listed as expected, and fails again when one is listed but passes', async () => {
    const listed = await runNotes({ allowEffects: true, expectedFailures: planted }, true);
    expect(listed.exitCode).toBe(0);
    expect(listed.results.filter((result) => result.expected === true)).toHaveLength(planted.size);

    const stale = await runNotes({ allowEffects: true, expectedFailures: planted });
    expect([...stale.staleExpectations].sort()).toEqual([...planted].sort());
    expect(stale.exitCode).toBe(1);
    expect(renderTable(stale)).toContain('Listed as expected failures but passing');
  });
});
