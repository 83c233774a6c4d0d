/**
 * Group commit: the writes issued during one turn of the event loop wait for
 * the end of the turn and are committed together, so that calls in flight at
 * once share a transaction instead of each paying for its own. The queue
 * knows nothing of SQLite: `commit` runs a group and says what each write
 * came to.
 */

/** What one write of a group came to. */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Runs `works` as one group, in order, and returns one outcome per work; it
 * throws when the group as a whole failed (then no work of it was kept).
 */
export type CommitGroup = (works: readonly (() => unknown)[]) => Outcome[];

interface Pending {
  readonly work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The real `setImmediate`, taken when this module loads: a test that fakes
 * timers afterwards (`vi.useFakeTimers()`, sinon) must not leave every write
 * waiting for a clock it never advances.
 */
const atEndOfTurn = globalThis.setImmediate;

/** The most writes one transaction takes: a longer queue is committed as several, in order. */
export const MAX_GROUP = 256;

export class GroupCommit {
  readonly #commit: CommitGroup;
  readonly #pending: Pending[] = [];
  #scheduled = false;

  constructor(commit: CommitGroup) {
    this.#commit = commit;
  }

  /** Queues `work`; it runs, and the promise settles, when the group it joined is committed. */
  enqueue<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      atEndOfTurn(() => {
        this.#scheduled = false;
        this.flush();
      });
    });
  }

  /** Commits everything queued, now: before a read (which must see every write issued before it), a sweep, or closing. */
  flush(): void {
    while (this.#pending.length > 0) {
      const group = this.#pending.splice(0, MAX_GROUP);
      settleGroup(group, this.#commit);
    }
  }
}

function settleGroup(group: readonly Pending[], commit: CommitGroup): void {
  let outcomes: Outcome[];
  try {
    outcomes = commit(group.map((pending) => pending.work));
  } catch (error) {
    for (const pending of group) pending.reject(error);
    return;
  }
  group.forEach((pending, index) => {
    const outcome = outcomes[index];
    if (outcome?.ok === true) pending.resolve(outcome.value);
    else pending.reject(outcome === undefined ? new Error('group commit: a write has no outcome') : outcome.error);
  });
}
