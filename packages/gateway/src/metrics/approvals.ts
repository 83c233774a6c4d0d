/**
 * Approval requests as the metrics see them: opened and decided on this
 * instance (the desk tells its backends of both, where they happen), and
 * pending on the store every instance shares (the desk's watch hears each
 * change, on any instance; the ones pending when the gateway started are
 * read once).
 */
import type { Logger } from '@ext/core';
import type { ApprovalDesk, ApprovalRecord, ApproverBackend } from '@ext/confirmation/approvals';
import type { ApprovalDecision, GatewayRecorder } from './recorder.js';

const DECISIONS: ReadonlySet<string> = new Set<ApprovalDecision>(['approved', 'denied', 'expired', 'cancelled']);

/** Most pending requests read when the gateway starts. */
const SEED_LIMIT = 1000;

/** An approver backend that only counts: each request opened, each decision by what it was. */
export function approvalsBackend(
  recorder: Pick<GatewayRecorder, 'approvalRequested' | 'approvalDecided'>,
): ApproverBackend {
  return {
    name: 'metrics',
    notify: (event) => {
      const { record } = event;
      if (event.type === 'requested') recorder.approvalRequested(record.tool);
      else if (DECISIONS.has(record.state)) recorder.approvalDecided(record.tool, record.state as ApprovalDecision);
      return Promise.resolve();
    },
  };
}

type Seen = Pick<ApprovalRecord, 'id' | 'state' | 'expires_at'>;

/** The requests known to be pending, each until its expiry. Pure. */
export class PendingApprovals {
  readonly #pending = new Map<string, number>();
  /** Requests seen decided while the pending ones were being read: a stale read must not bring them back. */
  #settled: Set<string> | undefined;

  /** Records a request as it stands now. */
  seen(record: Seen): void {
    if (record.state === 'pending' && this.#settled?.has(record.id) !== true) {
      this.#pending.set(record.id, record.expires_at);
      return;
    }
    this.#pending.delete(record.id);
    if (record.state !== 'pending') this.#settled?.add(record.id);
  }

  /** While `read` runs, a request decided meanwhile stays decided whatever `read` returns. */
  async seeding(read: () => Promise<readonly Seen[]>): Promise<void> {
    this.#settled = new Set();
    try {
      for (const record of await read()) this.seen(record);
    } finally {
      this.#settled = undefined;
    }
  }

  /** How many are pending at `now` (epoch milliseconds); the expired are forgotten. */
  count(now: number): number {
    for (const [id, expiresAt] of this.#pending) if (expiresAt <= now) this.#pending.delete(id);
    return this.#pending.size;
  }
}

/**
 * Keeps `pending` up to date from `desk`: every change heard, then the
 * requests pending now read once. Resolves to the function that stops it.
 * A failure to read them is logged: the count then starts from the changes.
 */
export async function watchPendingApprovals(
  desk: ApprovalDesk,
  pending: PendingApprovals,
  logger: Logger,
): Promise<() => Promise<void>> {
  const stop = await desk.watch((record) => {
    pending.seen(record);
  });
  try {
    await pending.seeding(() => desk.list({ state: 'pending', limit: SEED_LIMIT }));
  } catch (error) {
    logger.warn('gateway: could not read the pending approval requests for the metrics', { error: String(error) });
  }
  return stop;
}
