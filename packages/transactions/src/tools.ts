/**
 * The four operations as tools (`begin_transaction`, ...), for clients that
 * can only call tools: they run the methods' own handlers.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type ExtendedServer } from '@ext/core';
import { registerMethodTools } from '@ext/core/kit';
import * as z from 'zod';
import { ENGINE, type TransactionsServerExtension } from './extension.js';
import { ID_PATTERN, TRANSACTIONS_PACKAGE } from './schema.js';

/** The tool names of `registerTransactionTools`; calls to them are never recorded as steps. */
export const TRANSACTION_TOOL_NAMES = [
  'begin_transaction',
  'commit_transaction',
  'rollback_transaction',
  'transaction_status',
] as const;

function findExtension(server: Pick<ExtendedServer, 'composed'>): TransactionsServerExtension {
  const found = server.composed.extensions.find((half) => half.name === TRANSACTIONS_PACKAGE && ENGINE in half);
  if (!found) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      'registerTransactionTools: compose transactionsServer({ exposeAsTools: true }) into this server first',
    );
  }
  return found as TransactionsServerExtension;
}

const TransactionIdArg = z.string().regex(new RegExp(ID_PATTERN));

function statusLine(result: Record<string, unknown>): string {
  return `Transaction ${String(result.transaction_id)} is ${String(result.status).replaceAll('_', ' ')}.`;
}

/**
 * Registers `begin_transaction`, `commit_transaction`, `rollback_transaction`
 * and `transaction_status` on a server whose composed `transactionsServer`
 * was created with `exposeAsTools: true`, for clients that can only call
 * tools. They run the methods' own handlers (core `registerMethodTools`).
 */
export function registerTransactionTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): void {
  const extension = findExtension(server);
  if (!extension.exposeAsTools) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'registerTransactionTools: create transactionsServer with "exposeAsTools: true"',
    );
  }
  registerMethodTools(server, TRANSACTIONS_PACKAGE, [
    {
      verb: 'begin',
      name: 'begin_transaction',
      description:
        'Begin a transaction. Tool calls that name it are undone, newest first, if it is rolled back or left idle past its timeout.',
      inputSchema: z.object({
        transaction_id: TransactionIdArg.optional().describe(
          'Your id for the transaction; one is generated when absent.',
        ),
        timeout_seconds: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Roll back automatically after this much inactivity.'),
        description: z.string().max(1024).optional(),
      }),
      // The method requires an id; a tool caller may leave it to the server.
      params: (args) => ({ ...args, transaction_id: args.transaction_id ?? `tx-${randomUUID()}` }),
      summary: (result) => `Transaction ${String(result.transaction_id)} is active until ${String(result.expires_at)}.`,
    },
    {
      verb: 'commit',
      name: 'commit_transaction',
      description: 'Commit a transaction: its steps stay done and can no longer be rolled back.',
      inputSchema: z.object({ transaction_id: TransactionIdArg }),
      summary: (result) => `Transaction ${String(result.transaction_id)} is committed.`,
    },
    {
      verb: 'rollback',
      name: 'rollback_transaction',
      description: 'Roll a transaction back: undo its steps, newest first, and report each compensation.',
      annotations: { destructiveHint: true },
      inputSchema: z.object({ transaction_id: TransactionIdArg, reason: z.string().max(1024).optional() }),
      summary: statusLine,
    },
    {
      verb: 'status',
      name: 'transaction_status',
      description: 'Show a transaction: its state, its steps and their compensations.',
      annotations: { readOnlyHint: true },
      inputSchema: z.object({ transaction_id: TransactionIdArg }),
      summary: statusLine,
    },
  ]);
}
