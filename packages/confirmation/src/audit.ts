/** The audit log (CONF-13): one JSON entry per decision, appended to the store's `<prefix>:audit` stream. */
import { deprecatedAliases, type JsonValue } from '@ext/core/kit';
import { type Store } from '@ext/core';
import type { ConfirmationConfig } from './options.js';
import { auditStream } from './records.js';
import type { RiskLevel } from './schema.js';

/** What was audited. */
export type ConfirmationAuditEvent =
  | 'token_issued'
  | 'token_redeemed'
  | 'token_refused'
  | 'batch_approved'
  | 'grant_issued'
  | 'grant_used'
  | 'grant_refused'
  | 'elicitation_accepted'
  | 'elicitation_declined'
  | 'elicitation_unasked'
  | 'elicitation_shared'
  | 'refused_no_channel'
  | 'replayed_unasked'
  | 'approval_requested'
  | 'approval_attached'
  | 'approval_approved'
  | 'approval_denied'
  | 'approval_expired'
  | 'approval_cancelled'
  | 'approval_claimed'
  | 'approval_executed'
  | 'approval_execution_error'
  | 'approval_outcome_unknown'
  | 'approval_not_executed';

/** One audited event (CONF-13), as `readConfirmationAudit` returns it. */
export interface ConfirmationAuditEntry {
  readonly at: string;
  readonly event: ConfirmationAuditEvent;
  readonly principal: string;
  readonly tool?: string | undefined;
  readonly riskLevel?: RiskLevel | undefined;
  readonly code?: string | undefined;
  readonly batchId?: string | undefined;
  readonly count?: number | undefined;
  /** A digest of the token or grant id, never the secret itself; an approval request's id. */
  readonly ref?: string | undefined;
  /** @deprecated Use `riskLevel`; the snake_case spelling goes in the next major. */
  readonly risk_level?: RiskLevel | undefined;
  /** @deprecated Use `batchId`; the snake_case spelling goes in the next major. */
  readonly batch_id?: string | undefined;
}

/** An entry as stored: JSON with the field names of 0.1, so streams written before read the same. */
interface AuditRecord {
  readonly at: string;
  readonly event: ConfirmationAuditEvent;
  readonly principal: string;
  readonly tool?: string | undefined;
  readonly risk_level?: RiskLevel | undefined;
  readonly code?: string | undefined;
  readonly batch_id?: string | undefined;
  readonly count?: number | undefined;
  readonly ref?: string | undefined;
}

function entryOf(record: AuditRecord): ConfirmationAuditEntry {
  const { risk_level: riskLevel, batch_id: batchId, ...rest } = record;
  const entry: ConfirmationAuditEntry = {
    ...rest,
    ...(riskLevel === undefined ? {} : { riskLevel }),
    ...(batchId === undefined ? {} : { batchId }),
  };
  return deprecatedAliases('@ext/confirmation ConfirmationAuditEntry', entry, {
    risk_level: 'riskLevel',
    batch_id: 'batchId',
  });
}

/** Reads the audit stream (oldest first) from a store the server used. */
export async function readConfirmationAudit(
  store: Store,
  options: { readonly after?: string; readonly limit?: number; readonly keyPrefix?: string } = {},
): Promise<{ id: string; entry: ConfirmationAuditEntry }[]> {
  const entries = await store.read(auditStream(options.keyPrefix ?? 'confirmation'), {
    after: options.after,
    limit: options.limit,
  });
  return entries.map((item) => ({ id: item.id, entry: entryOf(item.value as unknown as AuditRecord) }));
}

/** Appends one entry, stamped with the server's clock, keeping at most `auditMaxLength` entries. */
export async function audit(
  config: Pick<ConfirmationConfig, 'now' | 'keyPrefix' | 'auditMaxLength'>,
  store: Store,
  entry: Omit<AuditRecord, 'at'>,
): Promise<void> {
  const value = { at: new Date(config.now()).toISOString(), ...entry } as unknown as JsonValue;
  await store.append(auditStream(config.keyPrefix), JSON.parse(JSON.stringify(value)) as JsonValue, {
    maxLength: config.auditMaxLength,
  });
}
