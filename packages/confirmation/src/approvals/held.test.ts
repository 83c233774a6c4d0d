/**
 * CONF-27 to CONF-31 through a real client and server on every line: a call
 * held for an operator is answered `CONFIRMATION_PENDING` (or its result,
 * when decided within `holdSeconds`), a retry attaches to the same request
 * and runs once it is approved, a denial is told and nothing runs, and
 * neither a token nor an in-band answer stands for an operator's decision.
 */
import { MemoryStore, type ExtendedServer, type StructuredError, type ToolResult } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callWithConfirmation, confirmationClient } from '../client.js';
import { confirmationServer } from '../server.js';
import type { ConfirmationServerOptions } from '../options.js';
import { approvalDesk, type ApprovalDesk } from './desk.js';
import { TOOL_APPROVAL_DISPOSITION_KEY } from './tool-approval.js';

const validError = seedValidators().check('error');

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

function deleteTool(ran: string[]) {
  return (server: ExtendedServer): void => {
    server.registerTool(
      'delete_file',
      {
        description: 'Deletes a file',
        inputSchema: z.object({ path: z.string() }),
        _meta: { 'io.github.mcp-ext/confirmation': { requires_confirmation: true, risk_level: 'destructive' } },
        annotations: { destructiveHint: true },
      },
      (args): ToolResult => {
        ran.push(args.path);
        return { content: [{ type: 'text', text: `deleted ${args.path}` }] };
      },
    );
  };
}

interface Held {
  readonly desk: ApprovalDesk;
  readonly ran: string[];
}

async function heldPair(
  line: (typeof TEST_LINES)[number],
  options: Partial<ConfirmationServerOptions> & { readonly elicit?: boolean; readonly tokens?: boolean } = {},
): Promise<Held> {
  const store = new MemoryStore();
  const desk = approvalDesk({ store, link: 'https://gateway.example/approvals/requests' });
  const ran: string[] = [];
  const { elicit, tokens, ...serverOptions } = options;
  pair = await createTestPair({
    line,
    serverExtensions: [
      errorsServer(),
      confirmationServer({ approver: 'operator', approvals: desk, holdSeconds: 0, ...serverOptions }),
    ],
    clientExtensions: [errorsClient(), tokens === true && confirmationClient()],
    serverOptions: { store },
    setup: deleteTool(ran),
    ...(elicit === true
      ? { onElicit: () => Promise.resolve({ action: 'accept' as const, content: { confirm: true } }) }
      : {}),
  });
  return { desk, ran };
}

function client(): TestPair['client'] {
  if (pair === undefined) throw new Error('no pair');
  return pair.client;
}

describe.each(TEST_LINES)('a call held for an operator on %s', (line) => {
  it('is pending until approved, a retry attaches to the same request, and it runs once', async () => {
    const { desk, ran } = await heldPair(line);
    const first = structuredError(await client().callTool('delete_file', { path: 'a.txt' }));
    expect(first).toMatchObject({ code: 'CONFIRMATION_PENDING', category: 'transient', retry_after_seconds: 1 });
    const id = (first?.details as { approval_id: string }).approval_id;
    expect(first?.details).toMatchObject({
      approval_url: `https://gateway.example/approvals/requests/${id}`,
      tool: 'delete_file',
    });
    const again = structuredError(await client().callTool('delete_file', { path: 'a.txt' }));
    expect((again?.details as { approval_id: string }).approval_id).toBe(id);
    expect(await desk.list()).toHaveLength(1);
    expect(ran).toEqual([]);

    await desk.decide(id, { approve: true, by: 'operator@example', reason: 'cleanup' });
    const done = await client().callTool('delete_file', { path: 'a.txt' });
    expect(done.isError).not.toBe(true);
    expect(done._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('approved-executed');
    expect(ran).toEqual(['a.txt']);
    expect(await desk.get(id)).toMatchObject({
      state: 'approved',
      outcome: 'executed',
      decided_by: 'operator@example',
    });

    // The approval was used: the same call again is a new intent, held again.
    const later = structuredError(await client().callTool('delete_file', { path: 'a.txt' }));
    expect(later?.code).toBe('CONFIRMATION_PENDING');
    expect((later?.details as { approval_id: string }).approval_id).not.toBe(id);
    expect(ran).toEqual(['a.txt']);
  });

  it('answers with the result when the decision comes while the call is held', async () => {
    const { desk, ran } = await heldPair(line, { holdSeconds: 10 });
    const call = client().callTool('delete_file', { path: 'b.txt' });
    let pending = await desk.list({ state: 'pending' });
    while (pending.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      pending = await desk.list({ state: 'pending' });
    }
    await desk.decide(pending[0]?.id ?? '', { approve: true, by: 'operator@example' });
    const result = await call;
    expect(result.isError).not.toBe(true);
    expect(ran).toEqual(['b.txt']);
  });

  it('tells a denial, runs nothing, and binds the request to the arguments', async () => {
    const { desk, ran } = await heldPair(line);
    const held = structuredError(await client().callTool('delete_file', { path: 'c.txt' }));
    const id = (held?.details as { approval_id: string }).approval_id;
    await desk.decide(id, { approve: false, by: 'operator@example', reason: 'not today' });
    const other = structuredError(await client().callTool('delete_file', { path: 'other.txt' }));
    expect(other?.code).toBe('CONFIRMATION_PENDING');
    expect((other?.details as { approval_id: string }).approval_id).not.toBe(id);
    const denied = structuredError(await client().callTool('delete_file', { path: 'c.txt' }));
    expect(denied).toMatchObject({ code: 'CONFIRMATION_DENIED', category: 'permanent' });
    expect(denied?.message).toContain('not today');
    expect(ran).toEqual([]);
    expect(await desk.get(id)).toMatchObject({ state: 'denied', outcome: 'not_executed' });
  });

  it('does not let a token or an in-band answer stand for the operator', async () => {
    const { desk, ran } = await heldPair(line, { tokens: true, elicit: true });
    const result = await callWithConfirmation(
      client(),
      'delete_file',
      { path: 'd.txt' },
      {
        confirm: () => Promise.resolve(true),
      },
    );
    expect(structuredError(result)?.code).toBe('CONFIRMATION_PENDING');
    expect(ran).toEqual([]);
    expect(await desk.list({ state: 'pending' })).toHaveLength(1);
  });

  it('with approver "either", asks in-band a client that can be asked, and holds one that cannot', async () => {
    const asking = await heldPair(line, { approver: 'either', elicit: true });
    expect((await client().callTool('delete_file', { path: 'e.txt' })).isError).not.toBe(true);
    expect(asking.ran).toEqual(['e.txt']);
    expect(await asking.desk.list()).toEqual([]);
    await pair?.close();
    const silent = await heldPair(line, { approver: 'either' });
    expect(structuredError(await client().callTool('delete_file', { path: 'e.txt' }))?.code).toBe(
      'CONFIRMATION_PENDING',
    );
    expect(silent.ran).toEqual([]);
  });
});

describe('a held call', () => {
  it('sends progress while it waits, to a client that asked for it', async () => {
    const { desk } = await heldPair('v2-legacy', { holdSeconds: 1 });
    const messages: string[] = [];
    const result = await client().callTool(
      'delete_file',
      { path: 'f.txt' },
      { onProgress: (progress) => messages.push(progress.message ?? '') },
    );
    expect(structuredError(result)?.code).toBe('CONFIRMATION_PENDING');
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages[0]).toMatch(/Waiting for an approver to decide on "delete_file" \(destructive\)/);
    expect(await desk.list({ state: 'pending' })).toHaveLength(1);
  });

  it('fails closed when a rule names an operator and the server has no desk', async () => {
    const ran: string[] = [];
    pair = await createTestPair({
      line: 'v2-legacy',
      serverExtensions: [errorsServer(), confirmationServer({ approver: () => 'operator' })],
      clientExtensions: [errorsClient()],
      setup: deleteTool(ran),
    });
    expect(structuredError(await client().callTool('delete_file', { path: 'g.txt' }))?.code).toBe(
      'CONFIRMATION_REQUIRED',
    );
    expect(ran).toEqual([]);
  });

  it('refuses an operator approver without a desk at construction, naming the option', () => {
    expect(() => confirmationServer({ approver: 'operator' })).toThrow(/approver "operator" needs approvals/);
    expect(() => confirmationServer({ approver: 'boss' as never })).toThrow(/approver must be/);
  });
});
