/** The wire results read off a record: `steps_compensated`, the rollback result and the status view. */
import { expiresAt, notActive, type TransactionRecord } from './record.js';
import type { CompensatedStep, RollbackResult, StatusResult, StepView } from './schema.js';

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `steps_compensated`: every step that had an effect, in the order compensations run (newest first). */
export function compensatedSteps(record: TransactionRecord): CompensatedStep[] {
  const out: CompensatedStep[] = [];
  for (let index = record.steps.length - 1; index >= 0; index -= 1) {
    const step = record.steps[index];
    if (!step || (step.status !== 'compensated' && step.status !== 'compensation_failed')) continue;
    const entry: CompensatedStep = { step_id: step.step_id, status: step.status, tool: step.tool };
    if (step.error) entry.error = step.error;
    out.push(entry);
  }
  return out;
}

/** The wire result of a finished rollback. */
export function rollbackResult(record: TransactionRecord): RollbackResult {
  if (record.status !== 'rolled_back' && record.status !== 'partially_rolled_back') {
    throw notActive(record, 'report a rollback');
  }
  const result: RollbackResult = {
    transaction_id: record.transaction_id,
    status: record.status,
    steps_compensated: compensatedSteps(record),
    trigger: record.rollback?.trigger ?? 'client',
  };
  if (record.rollback?.reason !== undefined) result.reason = record.rollback.reason;
  return result;
}

/** The wire result of `<id>/status`. */
export function statusView(record: TransactionRecord): StatusResult {
  const view: StatusResult = {
    transaction_id: record.transaction_id,
    status: record.status,
    timeout_seconds: record.timeout_seconds,
    created_at: iso(record.created_at),
    last_activity_at: iso(record.last_activity_at),
    steps: record.steps.map((step) => {
      const entry: StepView = { step_id: step.step_id, tool: step.tool, status: step.status };
      if (step.compensation) entry.compensation = step.compensation;
      if (step.error) entry.error = step.error;
      return entry;
    }),
  };
  if (record.status === 'active') view.expires_at = iso(expiresAt(record));
  if (record.description !== undefined) view.description = record.description;
  if (record.status === 'rolled_back' || record.status === 'partially_rolled_back') {
    view.steps_compensated = compensatedSteps(record);
  }
  return view;
}
