/**
 * The client half of `@ext/transactions`: the descriptor that advertises the
 * extension, and what a host calls (transactions, sagas, step results).
 */
import type { ClientExtension } from '@ext/core';
import { ServerSettings, TRANSACTIONS_ID, TRANSACTIONS_PACKAGE, TRANSACTIONS_WIRE_VERSION } from './schema.js';

export { getTransactionsSettings } from './settings.js';
export { structuredErrorOf } from './structured-errors.js';
export { beginTransaction, readStepMeta } from './transaction.js';
export type { BeginTransactionOptions, ClientTransaction, StepCallOptions } from './transaction.js';
export { runSaga } from './saga.js';
export type { SagaFailure, SagaOptions, SagaOutcome, SagaParticipant, SagaStep } from './saga.js';

/** The client half: advertises the extension so the server knows steps will be marked. */
export function transactionsClient(): ClientExtension {
  return {
    side: 'client',
    name: TRANSACTIONS_PACKAGE,
    ids: [TRANSACTIONS_ID],
    settings: { version: TRANSACTIONS_WIRE_VERSION },
    peerSettings: ServerSettings,
    requires: ['@ext/idempotency'],
  };
}
