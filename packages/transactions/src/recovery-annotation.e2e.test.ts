import { readFileSync } from 'node:fs';
import { MemoryStore, type ExtendedClient, type ExtendedServer, type ToolResult } from '@ext/core';
import { createTestPair, TEST_LINES, type TestLine } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { beginTransaction, getTransactionsSettings, readStepMeta, transactionsClient } from './client.js';
import type { ToolRecovery } from './recovery-annotation.js';
import { TRANSACTIONS_ID } from './schema.js';
import { transactionsServer, type TransactionsServerExtension } from './server.js';

/** The draft's own material (SEP-3172, PR #3172), see test-fixtures/sep-3172/README.md. */
function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./test-fixtures/sep-3172/${name}`, import.meta.url), 'utf8')) as unknown;
}

const draftAnnotations = Compile(fixture('tool-annotations.schema.json') as Parameters<typeof Compile>[0]);
const example = fixture('charge-payment.recovery.json') as ToolRecovery;

/** A payments back end outside the server, so every per-request server acts on the same state. */
interface Payments {
  readonly charges: Map<string, number>;
  /** Every refund and release, in order. */
  readonly undone: string[];
  next: number;
}

function registerPaymentTools(server: Pick<ExtendedServer, 'registerTool'>, payments: Payments): void {
  const charge = (amount: number): ToolResult => {
    const transactionId = `TXN-${payments.next++}`;
    payments.charges.set(transactionId, amount);
    return {
      content: [{ type: 'text', text: `Charged ${transactionId}` }],
      structuredContent: { transactionId, amount },
    };
  };
  // Declared only the draft's way: the compensation is the annotation's.
  server.registerTool(
    'charge_payment',
    { description: 'Charge a card', inputSchema: z.object({ amount: z.number() }), annotations: { recovery: example } },
    (args) => charge(args.amount),
  );
  server.registerTool(
    'refund_payment',
    { description: 'Refund a charge', inputSchema: z.object({ transactionId: z.string() }) },
    (args) => {
      if (!payments.charges.delete(args.transactionId)) {
        return { content: [{ type: 'text', text: `No charge ${args.transactionId}` }], isError: true };
      }
      payments.undone.push(`refund:${args.transactionId}`);
      return { content: [{ type: 'text', text: `Refunded ${args.transactionId}` }] };
    },
  );
  // Declared both ways: ours wins (TXN-24).
  server.registerTool(
    'charge_both',
    {
      description: 'Charge, undone our way',
      inputSchema: z.object({ amount: z.number() }),
      annotations: { recovery: example },
    },
    (args) => charge(args.amount),
  );
  // The result carries no structuredContent, so the draft's binding cannot be resolved (SEP-3172 §4.2).
  server.registerTool(
    'charge_quietly',
    {
      description: 'Charge, saying little',
      inputSchema: z.object({ amount: z.number() }),
      annotations: { recovery: example },
    },
    (args) => ({
      content: [{ type: 'text', text: `Charged ${JSON.stringify(charge(args.amount).structuredContent)}` }],
    }),
  );
  // Names a compensating tool the server does not have.
  server.registerTool(
    'charge_ghost',
    {
      description: 'Charge, undone by nothing',
      inputSchema: z.object({ amount: z.number() }),
      annotations: {
        recovery: {
          ...example,
          compensatingOperation: { ...example.compensatingOperation, operationId: 'void_charge' },
        },
      },
    },
    (args) => charge(args.amount),
  );
  // Declared our way, with bindings: the server writes the draft's annotation (TXN-25).
  server.registerTool(
    'hold_funds',
    { description: 'Hold funds', inputSchema: z.object({ amount: z.number() }) },
    (args) => charge(args.amount),
  );
}

interface ListedTool {
  readonly name: string;
  readonly annotations?: Record<string, unknown>;
  readonly _meta?: Record<string, unknown>;
}

/**
 * `tools/list` as it travels: both SDK lines' `listTools()` parse annotations
 * with a closed schema and drop the draft's `recovery`, so a host reads the
 * raw result.
 */
async function listedTools(client: ExtendedClient): Promise<ListedTool[]> {
  const result = await client.request('tools/list', {});
  return result.tools as ListedTool[];
}

const open: { close(): Promise<void> }[] = [];
const extensions: TransactionsServerExtension[] = [];

afterEach(async () => {
  for (const extension of extensions.splice(0)) extension.stop();
  for (const item of open.splice(0).reverse()) await item.close();
});

async function rig(line: TestLine, speaksOurs = true): Promise<{ client: ExtendedClient; payments: Payments }> {
  const payments: Payments = { charges: new Map(), undone: [], next: 1 };
  const tx = transactionsServer({
    sweepIntervalMs: 0,
    compensations: {
      charge_both: {
        compensate: (_args, result) => {
          payments.charges.delete(String(result.structuredContent?.transactionId));
          payments.undone.push('ours');
        },
      },
      hold_funds: {
        tool: 'refund_payment',
        bindings: { transactionId: '$response.body#/transactionId' },
        compensate: (_args, _result, ctx) => {
          payments.charges.delete(String(ctx.parameters?.transactionId));
          payments.undone.push(`release:${String(ctx.parameters?.transactionId)}`);
        },
      },
    },
  });
  extensions.push(tx);
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), idempotencyServer(), tx],
    clientExtensions: speaksOurs ? [errorsClient(), idempotencyClient(), transactionsClient()] : [],
    serverOptions: { store: new MemoryStore() },
    setup: (server) => {
      registerPaymentTools(server, payments);
    },
  });
  open.push(pair);
  return { client: pair.client, payments };
}

/** SDK v2 servers can call their own tools (core's `runTool`); SDK v1 servers cannot (TXN-23). */
const runsOwnTools = (line: TestLine): boolean => line !== 'v1';

describe.each(TEST_LINES)('SEP-3172 compensations declared in tool annotations, on %s', (line) => {
  it("TXN-23/TXN-25: tools/list carries the draft's annotation, valid in the draft's schema, and ours beside it", async () => {
    const { client } = await rig(line);
    const tools = await listedTools(client);
    const charge = tools.find((tool) => tool.name === 'charge_payment');
    expect(charge?.annotations?.recovery).toEqual(example);
    expect(draftAnnotations.Check(charge?.annotations)).toBe(true);
    // Written by the server for a compensation declared its own way with bindings.
    const hold = tools.find((tool) => tool.name === 'hold_funds');
    expect(hold?.annotations?.recovery).toEqual({
      strategy: 'compensation',
      compensatingOperation: {
        operationId: 'refund_payment',
        parameters: { transactionId: '$response.body#/transactionId' },
      },
    });
    expect(draftAnnotations.Check(hold?.annotations)).toBe(true);
    // The settings were built before any tool registered: they name the compensations declared our way (TXN-23).
    expect(getTransactionsSettings(client)?.settings.compensable_tools).toEqual(
      expect.arrayContaining(['charge_both', 'hold_funds']),
    );
    expect(charge?._meta?.[TRANSACTIONS_ID]).toEqual(
      runsOwnTools(line) ? { compensable: true, compensation: 'Undo with refund_payment' } : undefined,
    );
  });

  it('TXN-23: a step on an annotated tool is rolled back by calling the tool the annotation names', async () => {
    const { client, payments } = await rig(line);
    const transaction = await beginTransaction(client, { transactionId: 'tx-charge' });
    const charged = await transaction.callTool('charge_payment', { amount: 59.97 });
    if (!runsOwnTools(line)) {
      // The server cannot run the declared compensation: the step is refused before it runs.
      expect(charged.isError).toBe(true);
      expect(JSON.stringify(charged.content)).toContain('cannot call its own tools');
      expect(payments.charges.size).toBe(0);
      return;
    }
    expect(readStepMeta(charged)).toEqual({
      transaction_id: 'tx-charge',
      step_id: 'step-1',
      status: 'ok',
      compensation: {
        description: 'Undo with refund_payment',
        tool: 'refund_payment',
        parameters: { transactionId: 'TXN-1' },
      },
    });
    expect(payments.charges.has('TXN-1')).toBe(true);
    const result = await transaction.rollback('the shipment failed');
    expect(result.status).toBe('rolled_back');
    expect(result.steps_compensated).toEqual([{ step_id: 'step-1', tool: 'charge_payment', status: 'compensated' }]);
    expect(payments.undone).toEqual(['refund:TXN-1']);
    expect(payments.charges.size).toBe(0);
    // Asked again: the stored outcome, nothing refunded twice.
    expect((await transaction.rollback()).status).toBe('rolled_back');
    expect(payments.undone).toEqual(['refund:TXN-1']);
  });

  it('TXN-24: a client that speaks both gets one compensation: the one declared our way', async () => {
    const { client, payments } = await rig(line);
    const transaction = await beginTransaction(client, { transactionId: 'tx-both' });
    const charged = await transaction.callTool('charge_both', { amount: 5 });
    expect(readStepMeta(charged)?.compensation).toEqual({ description: 'Undo charge_both' });
    const result = await transaction.rollback();
    expect(result.status).toBe('rolled_back');
    expect(payments.undone).toEqual(['ours']);
  });

  it('TXN-25: a compensation declared our way with bindings gets its parameters bound from them', async () => {
    const { client, payments } = await rig(line);
    const transaction = await beginTransaction(client, { transactionId: 'tx-hold' });
    const held = await transaction.callTool('hold_funds', { amount: 7 });
    expect(readStepMeta(held)?.compensation).toEqual({
      description: 'Undo hold_funds',
      tool: 'refund_payment',
      parameters: { transactionId: 'TXN-1' },
    });
    expect((await transaction.rollback()).status).toBe('rolled_back');
    // The server's own compensation ran, not the tool the written annotation names.
    expect(payments.undone).toEqual(['release:TXN-1']);
  });

  it('TXN-23: a binding the result cannot satisfy is not called with partial arguments', async () => {
    if (!runsOwnTools(line)) return;
    const { client, payments } = await rig(line);
    const transaction = await beginTransaction(client, { transactionId: 'tx-quiet' });
    const charged = await transaction.callTool('charge_quietly', { amount: 3 });
    expect(readStepMeta(charged)?.compensation).toEqual({
      description: 'Undo with refund_payment',
      tool: 'refund_payment',
    });
    const result = await transaction.rollback();
    expect(result.status).toBe('partially_rolled_back');
    expect(result.steps_compensated[0]).toMatchObject({
      status: 'compensation_failed',
      error: { code: 'COMPENSATION_UNAVAILABLE' },
    });
    expect(payments.undone).toEqual([]);
    expect(payments.charges.size).toBe(1);
  });

  it('TXN-23: a compensation naming a tool the server lacks fails, and the rollback says so', async () => {
    if (!runsOwnTools(line)) return;
    const { client, payments } = await rig(line);
    const transaction = await beginTransaction(client, { transactionId: 'tx-ghost' });
    await transaction.callTool('charge_ghost', { amount: 3 });
    const result = await transaction.rollback();
    expect(result.status).toBe('partially_rolled_back');
    expect(result.steps_compensated[0]).toMatchObject({ status: 'compensation_failed' });
    expect(payments.charges.size).toBe(1);
  });

  it('a client that speaks only the draft reads the annotation and undoes the call itself', async () => {
    const { client, payments } = await rig(line, false);
    expect(getTransactionsSettings(client)).toBeUndefined();
    const tools = await listedTools(client);
    const recovery = tools.find((tool) => tool.name === 'charge_payment')?.annotations?.recovery as ToolRecovery;
    const charged = await client.callTool('charge_payment', { amount: 10 });
    expect(charged._meta?.[TRANSACTIONS_ID]).toBeUndefined();
    // The host's own binding of `$response.body#/<name>`, as a draft-only orchestrator would make it.
    const args = Object.fromEntries(
      Object.entries(recovery.compensatingOperation.parameters).map(([name, expression]) => [
        name,
        charged.structuredContent?.[expression.replace('$response.body#/', '')],
      ]),
    );
    const refunded = await client.callTool(recovery.compensatingOperation.operationId, args);
    expect(refunded.isError).not.toBe(true);
    expect(payments.undone).toEqual(['refund:TXN-1']);
    expect(payments.charges.size).toBe(0);
  });

  it('TXN-23: an annotation the draft does not allow makes the tool not transactional, naming the field', async () => {
    const ran: number[] = [];
    const tx = transactionsServer({ sweepIntervalMs: 0 });
    extensions.push(tx);
    const pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), idempotencyServer(), tx],
      clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
      serverOptions: { store: new MemoryStore() },
      setup: (server) => {
        server.registerTool(
          'charge_payment',
          {
            description: 'Charge',
            inputSchema: z.object({ amount: z.number() }),
            annotations: { recovery: { strategy: 'compensation', compensatingOperation: { operationId: 'refund' } } },
          },
          (args) => {
            ran.push(args.amount);
            return { content: [{ type: 'text', text: String(args.amount) }] };
          },
        );
      },
    });
    open.push(pair);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-bad' });
    const refused = await transaction.callTool('charge_payment', { amount: 1 });
    expect(refused.isError).toBe(true);
    const error = refused._meta?.['io.github.mcp-ext/errors'] as Record<string, unknown>;
    expect(error).toMatchObject({ code: 'TOOL_NOT_TRANSACTIONAL' });
    expect(error.details).toMatchObject({ pointer: '/annotations/recovery/compensatingOperation' });
    expect(ran).toEqual([]);
  });
});
