/** The audit log (CONF-13): one JSON entry per decision, appended to the store's `<prefix>:audit` stream. */
import type { JsonValue, Store } from '@ext/core';
import type { ConfirmationConfig } from './options.js';
import { auditStream } from './records.js';
import type { RiskLevel } from './schema.js';

/** One audited event (CONF-13); entries are JSON in the store's `<prefix>:audit` stream. */
export interface ConfirmationAuditEntry {
  readonly at: string;
  readonly event:
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
    | 'refused_no_channel';
  readonly principal: string;
  readonly tool?: string | undefined;
  readonly risk_level?: RiskLevel | undefined;
  readonly code?: string | undefined;
  readonly batch_id?: string | undefined;
  readonly count?: number | undefined;
  /** A digest of the token or grant id, never the secret itself. */
  readonly ref?: string | undefined;
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
  return entries.map((item) => ({ id: item.id, entry: item.value as unknown as ConfirmationAuditEntry }));
}

/** Appends one entry, stamped with the server's clock, keeping at most `auditMaxLength` entries. */
export async function audit(
  config: ConfirmationConfig,
  store: Store,
  entry: Omit<ConfirmationAuditEntry, 'at'>,
): Promise<void> {
  const value = { at: new Date(config.now()).toISOString(), ...entry } as unknown as JsonValue;
  await store.append(auditStream(config.keyPrefix), JSON.parse(JSON.stringify(value)) as JsonValue, {
    maxLength: config.auditMaxLength,
  });
}
