/**
 * Whether a call may be sent to its upstream again after a fault, decided
 * without I/O. A fault before the request left the gateway (a connection
 * refused, a session the upstream no longer knows) ran nothing, so any call
 * may be sent again; after it left, the upstream may have run it, so only a
 * call that is safe to repeat is.
 */

/** How far a failed request got: `unsent` never reached the upstream; `sent` may have. */
export type FaultStage = 'unsent' | 'sent';

/** What makes running a call twice harmless. */
export interface CallSafety {
  /** The upstream annotates the tool `readOnlyHint: true`. */
  readonly readOnly: boolean;
  /**
   * The call runs under an idempotency key the gateway holds: the client
   * asked for at-most-once per key and repeats the call under that key
   * after a transient failure, which runs it again upstream anyway.
   */
  readonly idempotencyKey: boolean;
  /** The tool's policy `retry`: `true` says safe to repeat, `false` never; `undefined` leaves it to the two above. */
  readonly policy: boolean | undefined;
}

/** A call nothing says is safe to repeat: sent again only when it never reached the upstream. */
export const UNSAFE_CALL: CallSafety = { readOnly: false, idempotencyKey: false, policy: undefined };

/** Whether running the call twice is harmless: the policy says so, else a read-only tool or an idempotency key. */
export function isRepeatable(safety: CallSafety): boolean {
  return safety.policy ?? (safety.readOnly || safety.idempotencyKey);
}

/** Whether a call that failed at `stage` may be sent to the upstream again. */
export function mayRetry(safety: CallSafety, stage: FaultStage): boolean {
  return stage === 'unsent' || isRepeatable(safety);
}
