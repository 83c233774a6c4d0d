import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { transactionsServer } from '@ext/transactions/server';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Target } from '../probe.js';
import { runConformance, type RunOutcome } from '../runner.js';
import { recoveryViolations } from './recovery-annotation.js';

const CHECK = 'transactions/recovery-annotations';

/** SEP-3172 §4.2's example (PR #3172, head c66570f6): `charge_payment` undone by `refund_payment`. */
const RECOVERY = {
  strategy: 'compensation',
  compensatingOperation: {
    operationId: 'refund_payment',
    parameters: { transactionId: '$response.body#/transactionId' },
  },
};

/** Faults planted in `charge_payment`'s annotation. */
const FAULTS: Record<string, unknown> = {
  // Names a tool the server does not list.
  'missing-tool': { ...RECOVERY, compensatingOperation: { ...RECOVERY.compensatingOperation, operationId: 'void' } },
  // The draft requires `parameters`.
  'no-parameters': { strategy: 'compensation', compensatingOperation: { operationId: 'refund_payment' } },
  // Binds what no MCP call has (an HTTP header).
  'header-binding': {
    ...RECOVERY,
    compensatingOperation: { operationId: 'refund_payment', parameters: { transactionId: '$response.header.X-Id' } },
  },
};

/** A payments server whose `charge_payment` declares `recovery` (none when `undefined`), run through the suite. */
async function run(recovery: unknown, protocolVersion: string): Promise<RunOutcome> {
  const transactions = transactionsServer({ sweepIntervalMs: 0 });
  const composed = composeServer([errorsServer(), idempotencyServer(), transactions]);
  const store = new MemoryStore();
  const createServer = (): McpServer => {
    const server = new McpServer({ name: 'payments', version: '1.0.0' });
    const extended = extendServer(server, composed, { store });
    extended.registerTool(
      'charge_payment',
      {
        description: 'Charges a card.',
        inputSchema: z.object({ amount: z.number() }),
        annotations: recovery === undefined ? {} : { recovery },
      },
      ({ amount }) => ({
        content: [{ type: 'text', text: 'charged' }],
        structuredContent: { transactionId: 'T', amount },
      }),
    );
    extended.registerTool(
      'refund_payment',
      { description: 'Refunds a charge.', inputSchema: z.object({ transactionId: z.string() }) },
      () => ({ content: [{ type: 'text', text: 'refunded' }] }),
    );
    return server;
  };
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    const target: Target = { kind: 'http', url: String(listening.url) };
    return await runConformance({ target, protocolVersion, extensions: ['transactions'] });
  } finally {
    transactions.stop();
    await listening.close();
  }
}

const statusOf = (outcome: RunOutcome): string | undefined =>
  outcome.results.find((result) => result.id === CHECK)?.status;

describe.each(['2025-11-25', '2026-07-28'])('the SEP-3172 check of the transactions suite on %s', (protocolVersion) => {
  it("passes against a server that lists the draft's example", async () => {
    const outcome = await run(RECOVERY, protocolVersion);
    expect(statusOf(outcome)).toBe('passed');
    expect(outcome.exitCode).toBe(0);
  });

  it('skips against a server whose tools declare none', async () => {
    expect(statusOf(await run(undefined, protocolVersion))).toBe('skipped');
  });

  it.each(Object.entries(FAULTS))('catches a planted fault: %s', async (_fault, recovery) => {
    const outcome = await run(recovery, protocolVersion);
    const failed = outcome.results.filter((result) => result.status === 'failed').map((result) => result.id);
    expect(failed).toEqual([CHECK]);
    expect(outcome.exitCode).toBe(1);
  });
});

describe('recoveryViolations', () => {
  it('judges only the compensation strategy, and names each problem', () => {
    const names = new Set(['charge_payment', 'refund_payment']);
    expect(recoveryViolations({ name: 'charge_payment', annotations: { recovery: RECOVERY } }, names)).toEqual([]);
    expect(recoveryViolations({ name: 'x', annotations: { recovery: { strategy: 'manual-only' } } }, names)).toEqual(
      [],
    );
    expect(
      recoveryViolations(
        {
          name: 'x',
          annotations: { recovery: { strategy: 'compensation', compensatingOperation: { parameters: 1 } } },
        },
        names,
      ),
    ).toHaveLength(2);
  });
});
