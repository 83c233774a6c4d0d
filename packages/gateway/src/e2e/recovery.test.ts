/**
 * A saga through the gateway over an upstream that declares its tools'
 * compensations the SEP-3172 way (`annotations.recovery`), with no
 * `compensate` entry in the gateway's config: the gateway undoes the
 * upstream's charge by calling the refund the upstream named (GW-52), and
 * offers the annotation under the names clients call (GW-53). The upstream is
 * a real SDK v2 server over Streamable HTTP; what it did is read from its
 * own state, not through the gateway.
 */
import { silentLogger } from '@ext/core/kit';
import { type ExtendedClient } from '@ext/core';
import { listen } from '@ext/core/sdk-v2/server';
import { errorsClient } from '@ext/errors/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { closeAfter, closeAfterEach, connectClient, ERAS, gatewayConfig, serveGateway } from './support.js';

closeAfterEach();

/** SEP-3172 §4.2's example (PR #3172, head c66570f6): `charge_payment` undone by `refund_payment`. */
const RECOVERY = {
  strategy: 'compensation',
  compensatingOperation: {
    operationId: 'refund_payment',
    parameters: { transactionId: '$response.body#/transactionId' },
  },
};

interface Payments {
  readonly url: string;
  readonly charges: Map<string, number>;
  readonly refunds: string[];
}

/** A payments server that declares `charge_payment`'s compensation only in its annotations. */
async function paymentsUpstream(): Promise<Payments> {
  const charges = new Map<string, number>();
  const refunds: string[] = [];
  let next = 1;
  const build = () => {
    const server = new McpServer({ name: 'payments', version: '1.0.0' });
    server.registerTool(
      'charge_payment',
      {
        description: 'Charges a card.',
        inputSchema: z.object({ amount: z.number() }),
        annotations: { destructiveHint: false, recovery: RECOVERY } as never,
      },
      ({ amount }) => {
        const transactionId = `TXN-${String(next++)}`;
        charges.set(transactionId, amount);
        return {
          content: [{ type: 'text', text: `charged ${transactionId}` }],
          structuredContent: { transactionId, amount },
        };
      },
    );
    server.registerTool(
      'refund_payment',
      { description: 'Refunds a charge.', inputSchema: z.object({ transactionId: z.string() }) },
      ({ transactionId }) => {
        if (!charges.delete(transactionId))
          return { content: [{ type: 'text', text: 'no such charge' }], isError: true };
        refunds.push(transactionId);
        return { content: [{ type: 'text', text: `refunded ${transactionId}` }] };
      },
    );
    server.registerTool(
      'ship_order',
      {
        description: 'Ships the order.',
        inputSchema: z.object({ order: z.string() }),
        annotations: {
          destructiveHint: false,
          recovery: { ...RECOVERY, compensatingOperation: { operationId: 'cancel_shipment', parameters: {} } },
        } as never,
      },
      () => ({ content: [{ type: 'text', text: 'the carrier is down' }], isError: true }),
    );
    return server;
  };
  const listening = await listen(createMcpHandler(build), { port: 0, logger: silentLogger });
  closeAfter(() => listening.close());
  return { url: String(listening.url), charges, refunds };
}

interface Listed {
  readonly name: string;
  readonly annotations?: Record<string, unknown>;
}

/** `tools/list` as it travels (the SDK's `listTools()` drops annotations it does not know). */
async function listed(client: ExtendedClient): Promise<Listed[]> {
  return (await client.request('tools/list', {})).tools as Listed[];
}

describe('a saga over an upstream that declares its compensations in tool annotations (SEP-3172)', () => {
  it.each(ERAS)(
    'GW-52: is rolled back by the refund the upstream names, with no compensate entry (%s)',
    async (era) => {
      const payments = await paymentsUpstream();
      const served = await serveGateway(
        gatewayConfig({
          upstreams: { pay: { url: payments.url } },
          identity: { anonymous: true },
          store: 'memory',
        }),
      );
      const { client } = await connectClient(served.url, {
        era,
        extensions: [errorsClient(), idempotencyClient(), transactionsClient()],
      });

      const outcome = await runSaga([
        { client, server: 'gateway', tool: 'charge_payment', arguments: { amount: 59.97 } },
        { client, server: 'gateway', tool: 'ship_order', arguments: { order: 'O-1' } },
      ]);
      expect(outcome.status).toBe('rolled_back');
      expect(outcome.participants[0]?.stepsCompensated).toEqual([
        { step_id: 'step-1', tool: 'charge_payment', status: 'compensated' },
      ]);
      // Upstream, the charge was refunded once, by the tool and with the argument its annotation names.
      expect(payments.refunds).toEqual(['TXN-1']);
      expect(payments.charges.size).toBe(0);
    },
  );

  it.each(ERAS)('GW-53: offers the annotation under the names clients call (%s)', async (era) => {
    const payments = await paymentsUpstream();
    const other = await paymentsUpstream();
    const served = await serveGateway(
      gatewayConfig({
        upstreams: { pay: { url: payments.url }, other: { url: other.url } },
        policy: {
          // The operator's compensation replaces the upstream's claim: its annotation is not offered.
          other__charge_payment: { compensate: { tool: 'refund_payment', arguments: { transactionId: 'x' } } },
        },
        identity: { anonymous: true },
        store: 'memory',
      }),
    );
    const { client } = await connectClient(served.url, {
      era,
      extensions: [errorsClient(), idempotencyClient(), transactionsClient()],
    });
    const tools = await listed(client);
    const annotationsOf = (name: string) => tools.find((tool) => tool.name === name)?.annotations;
    expect(annotationsOf('pay__charge_payment')?.recovery).toEqual({
      ...RECOVERY,
      compensatingOperation: { ...RECOVERY.compensatingOperation, operationId: 'pay__refund_payment' },
    });
    expect(annotationsOf('other__charge_payment')).not.toHaveProperty('recovery');
    // `cancel_shipment` is no tool the gateway offers: a host must not be sent to call it.
    expect(annotationsOf('pay__ship_order')).not.toHaveProperty('recovery');

    // The saga still calls the upstream's own tool under its own name.
    const outcome = await runSaga([
      { client, server: 'gateway', tool: 'pay__charge_payment', arguments: { amount: 5 } },
      { client, server: 'gateway', tool: 'pay__ship_order', arguments: { order: 'O-2' } },
    ]);
    expect(outcome.status).toBe('rolled_back');
    expect(payments.refunds).toEqual(['TXN-1']);
  });
});
