import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { describe, expect, it } from 'vitest';
import { approvalServer, FAULTS as PLANTABLE } from '../../fixtures/approval-server.mjs';
import type { Target } from '../probe.js';
import { runConformance, type RunOutcome } from '../runner.js';
import { toolApprovalSuite } from './tool-approval.js';

/**
 * Runs `body` against the fixture (with `fault` planted) served over HTTP
 * in-process (a stdio server per connection is slow to start), closed after.
 */
async function withServer<T>(
  fault: string | undefined,
  body: (target: Target, deleted: readonly string[]) => Promise<T>,
): Promise<T> {
  const { createServer, deleted } = approvalServer(fault);
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    return await body({ kind: 'http', url: String(listening.url) }, deleted);
  } finally {
    await listening.close();
  }
}

function run(target: Target, protocolVersion = '2026-07-28'): Promise<RunOutcome> {
  return runConformance({ target, protocolVersion, extensions: ['tool-approval'] });
}

const approvalResults = (outcome: RunOutcome) =>
  outcome.results.filter((result) => result.extension === 'tool-approval');
const statusOf = (outcome: RunOutcome, status: string): string[] =>
  approvalResults(outcome)
    .filter((result) => result.status === status)
    .map((result) => result.id);

const ALL = toolApprovalSuite.checks.map((check) => check.id);
const levels = new Map(toolApprovalSuite.checks.map((check) => [check.id, check.level]));
const TASK_CHECKS = [
  'tool-approval/task-at-once',
  'tool-approval/waits-working',
  'tool-approval/waiting-message',
  'tool-approval/cancel-fenced',
];

/**
 * Planted faults (`approval-server.mjs --fault <name>`), each with the checks
 * it must fail, those it leaves skipped, those that pass or skip by how the
 * run and the checker's requests interleave, and whether the gated tool runs.
 */
const FAULTS: Record<string, { fails: string[]; skips?: string[]; raced?: string[]; runs?: true }> = {
  // No task can be made, so the checks that need one skip, naming the failing check.
  'no-tasks': { fails: ['tool-approval/tasks-advertised'], skips: TASK_CHECKS },
  // The tool answers at once: there is no task to read.
  'runs-at-once': {
    runs: true,
    fails: ['tool-approval/task-at-once'],
    skips: ['tool-approval/waits-working', 'tool-approval/waiting-message', 'tool-approval/cancel-fenced'],
  },
  // The task runs the tool and completes within 100 ms, never having said it waited. Whether tasks/cancel
  // reaches it before that (the fence then holds: passed) or after (nothing to fence: skipped) is the machine's.
  'task-runs-unapproved': {
    runs: true,
    fails: ['tool-approval/waits-working', 'tool-approval/waiting-message'],
    raced: ['tool-approval/cancel-fenced'],
  },
  'no-status-message': { fails: ['tool-approval/waiting-message'] },
  'cancel-unfenced': { fails: ['tool-approval/cancel-fenced'] },
  'pending-permanent': { fails: ['tool-approval/pending-error'] },
  'new-request-per-call': { fails: ['tool-approval/retry-attaches'] },
};

describe('the tool-approval suite against a server that holds calls for an operator (SEP-2848)', () => {
  it('passes every check on 2026-07-28, without effects allowed, and nothing runs', async () => {
    const { outcome, deleted } = await withServer(undefined, async (target, deleted) => ({
      outcome: await run(target),
      deleted,
    }));
    expect(outcome.server.extensions).toHaveProperty(['io.modelcontextprotocol/tool-approval']);
    expect(approvalResults(outcome).filter((result) => result.status !== 'passed')).toEqual([]);
    expect(statusOf(outcome, 'passed')).toEqual(ALL);
    expect(outcome.untested).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    expect(deleted).toEqual([]);
  });

  it('on 2025-11-25 checks the plain held call and skips what needs a task', async () => {
    const outcome = await withServer(undefined, (target) => run(target, '2025-11-25'));
    expect(outcome.server.era).toBe('legacy');
    expect(statusOf(outcome, 'passed')).toEqual(ALL.filter((id) => !TASK_CHECKS.includes(id)));
    const skipped = approvalResults(outcome).filter((result) => result.status === 'skipped');
    expect(skipped.map((result) => result.id)).toEqual(TASK_CHECKS);
    expect(skipped.every((result) => result.message?.includes('--protocol-version 2026-07-28'))).toBe(true);
    expect(outcome.exitCode).toBe(0);
  });

  it('plants every fault the fixture knows', () => {
    expect(Object.keys(FAULTS).sort()).toEqual(Object.keys(PLANTABLE).sort());
  });

  // Concurrently: each run mostly waits (on purpose) for a task to change or not.
  it.concurrent.each(Object.entries(FAULTS))(
    'fails exactly the checks a planted fault breaks: %s',
    async (fault, planted) => {
      const { outcome, deleted } = await withServer(fault, async (target, deleted) => ({
        outcome: await run(target),
        deleted,
      }));
      expect(deleted.length > 0).toBe(planted.runs === true);
      expect(statusOf(outcome, 'error')).toEqual([]);
      expect(statusOf(outcome, 'failed').sort()).toEqual([...planted.fails].sort());
      const raced = new Set(planted.raced);
      const skipped = statusOf(outcome, 'skipped').filter((id) => !raced.has(id));
      expect(skipped.sort()).toEqual([...(planted.skips ?? [])].sort());
      for (const id of raced) {
        const status = approvalResults(outcome).find((result) => result.id === id)?.status;
        expect(['passed', 'skipped'], `${id} went ${String(status)}`).toContain(status);
      }
      // A SHOULD failure warns: the run still conforms.
      const must = planted.fails.some((id) => levels.get(id) === 'MUST');
      expect(outcome.exitCode).toBe(must ? 1 : 0);
    },
  );
});
