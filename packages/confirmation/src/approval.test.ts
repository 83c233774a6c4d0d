/**
 * CONF-19: approvals other extensions ask for (cost's `requires_approval`)
 * go through the same gate as a declared confirmation, and the core refuses
 * the call when no gate granted them.
 */
import { requireApproval } from '@ext/core/kit';
import { type ExtendedServer, type ServerExtension, type StructuredError, type ToolResult } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callWithConfirmation, confirmationClient } from './client.js';
import { effectiveGate } from './logic.js';
import { confirmationServer } from './server.js';

/** Stands in for cost: asks a person to approve every call of `export_report`. */
const billing: ServerExtension = {
  side: 'server',
  name: '@ext/test-billing',
  ids: ['io.github.mcp-ext/test-billing'],
  settings: { version: '1.0' },
  stage: 'cost',
  middleware: async (call, ctx, next) => {
    if (call.name === 'export_report')
      requireApproval(ctx, { requestedBy: '@ext/test-billing', reason: 'This export is billed: 5 credits.' });
    return next();
  },
};

const validError = seedValidators().check('error');

/** The structured error of a failed result, checked against the seed error schema. */
function structuredError(result: ToolResult): StructuredError | undefined {
  expect(result.isError).toBe(true);
  const error = getStructuredError(result);
  expect(validError(error).errors).toBe('');
  return error;
}

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

function setup(ran: string[]) {
  return (server: ExtendedServer): void => {
    server.registerTool(
      'export_report',
      { description: 'Exports a report', inputSchema: z.object({ month: z.string() }) },
      (args): ToolResult => {
        ran.push(args.month);
        return { content: [{ type: 'text', text: `exported ${args.month}` }] };
      },
    );
  };
}

describe('effectiveGate (CONF-19)', () => {
  it('keeps a declared gate, and otherwise gates on what others asked, at the most severe risk named', () => {
    const declared = { requiresConfirmation: true, riskLevel: 'destructive' as const, message: 'Delete?' };
    expect(effectiveGate(declared, [{ requestedBy: 'x', reason: 'billed' }])).toBe(declared);
    expect(effectiveGate(undefined, [])).toBeUndefined();
    expect(
      effectiveGate(undefined, [
        { requestedBy: 'a', reason: 'Billed.' },
        { requestedBy: 'b', reason: 'Slow.', riskLevel: 'destructive' },
      ]),
    ).toEqual({
      requiresConfirmation: true,
      riskLevel: 'destructive',
      message: 'Billed. Slow.',
    });
  });
});

describe.each(TEST_LINES)('approvals asked by other extensions on %s (CONF-19)', (line) => {
  it('run through the token path: nothing runs until the person approves, then exactly once', async () => {
    const ran: string[] = [];
    pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), billing, confirmationServer()],
      clientExtensions: [errorsClient(), confirmationClient()],
      setup: setup(ran),
    });
    const asked: string[] = [];
    const refused = await callWithConfirmation(
      pair.client,
      'export_report',
      { month: '2026-10' },
      {
        confirm: (request) => {
          if (request.kind === 'call') asked.push(`${request.riskLevel}: ${request.message}`);
          return Promise.resolve(false);
        },
      },
    );
    expect(ran).toEqual([]);
    expect(asked).toEqual(['reversible: This export is billed: 5 credits.']);
    expect(structuredError(refused)).toMatchObject({ code: 'CONFIRMATION_DECLINED' });
    const approved = await callWithConfirmation(
      pair.client,
      'export_report',
      { month: '2026-10' },
      { confirm: () => Promise.resolve(true) },
    );
    expect(approved.isError).not.toBe(true);
    expect(ran).toEqual(['2026-10']);
  });

  it('run through the in-band path when the client can only elicit (input_required on 2026-07-28)', async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    let accept = false;
    pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), billing, confirmationServer()],
      clientExtensions: [errorsClient()],
      setup: setup(ran),
      onElicit: (request) => {
        asked.push(request.message);
        return Promise.resolve(accept ? { action: 'accept', content: { confirm: true } } : { action: 'decline' });
      },
    });
    const declined = await pair.client.callTool('export_report', { month: '2026-11' });
    expect(structuredError(declined)).toMatchObject({ code: 'CONFIRMATION_DECLINED' });
    expect(ran).toEqual([]);
    accept = true;
    const result = await pair.client.callTool('export_report', { month: '2026-11' });
    expect(result.isError).not.toBe(true);
    expect(ran).toEqual(['2026-11']);
    expect(asked).toHaveLength(2);
    expect(asked.every((message) => message.includes('This export is billed: 5 credits.'))).toBe(true);
  });

  it('fail closed when the client can neither confirm nor elicit', async () => {
    const ran: string[] = [];
    pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), billing, confirmationServer()],
      clientExtensions: [errorsClient()],
      setup: setup(ran),
    });
    const result = await pair.client.callTool('export_report', { month: '2026-12' });
    expect(structuredError(result)).toMatchObject({ code: 'CONFIRMATION_REQUIRED', category: 'permanent' });
    expect(ran).toEqual([]);
  });

  it('are refused by the core when no confirmation gate is composed', async () => {
    const ran: string[] = [];
    pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), billing],
      clientExtensions: [errorsClient()],
      setup: setup(ran),
    });
    const result = await pair.client.callTool('export_report', { month: '2027-01' });
    expect(structuredError(result)).toMatchObject({
      code: 'APPROVAL_REQUIRED',
      category: 'permanent',
      details: { requested_by: ['@ext/test-billing'] },
    });
    expect(ran).toEqual([]);
  });
});
