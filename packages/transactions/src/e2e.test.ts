import {
  ConfigurationError,
  ExtensionError,
  MemoryStore,
  WireError,
  composeServer,
  type AuthInfo,
  type ExtendedClient,
  type Store,
  type ToolResult,
} from '@ext/core';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beginTransaction, getTransactionsSettings, readStepMeta, runSaga, transactionsClient } from './client.js';
import { seedValidators } from '@ext/core/testing';
import { TRANSACTIONS_ID } from './schema.js';
import {
  registerTransactionTools,
  transactionsServer,
  type TransactionsServerExtension,
  type TransactionsServerOptions,
} from './server.js';
import { createWorld, registerWorldTools, worldCompensations, type World } from './test-fixtures/world.js';

const seed = seedValidators();

function expectSeed(name: string, value: unknown): void {
  const check = seed.check('transactions', name)(value);
  expect(check.errors).toBe('');
  expect(check.valid).toBe(true);
}

interface Rig {
  pair: TestPair;
  world: World;
  tx: TransactionsServerExtension;
  store: Store;
  clock: { now: number };
}

const open: { close(): Promise<void> }[] = [];
const extensions: TransactionsServerExtension[] = [];

afterEach(async () => {
  for (const extension of extensions.splice(0)) extension.stop();
  for (const item of open.splice(0).reverse()) await item.close();
});

interface RigOptions {
  world?: World;
  store?: Store;
  clock?: { now: number };
  authInfo?: AuthInfo;
  server?: Partial<TransactionsServerOptions>;
  withClientHalf?: boolean;
  tools?: boolean;
}

async function rig(line: TestLine, options: RigOptions = {}): Promise<Rig> {
  const world = options.world ?? createWorld();
  const store = options.store ?? new MemoryStore();
  const clock = options.clock ?? { now: Date.parse('2026-03-15T10:00:00Z') };
  const tx = transactionsServer({
    compensations: worldCompensations(world),
    sweepIntervalMs: 0,
    now: () => clock.now,
    ...options.server,
  });
  extensions.push(tx);
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), idempotencyServer(), tx],
    clientExtensions:
      options.withClientHalf === false
        ? [errorsClient(), idempotencyClient()]
        : [errorsClient(), idempotencyClient(), transactionsClient()],
    serverOptions: { store },
    authInfo: options.authInfo,
    setup: (server) => {
      registerWorldTools(server, world);
      if (options.tools === true) registerTransactionTools(server);
    },
  });
  open.push(pair);
  return { pair, world, tx, store, clock };
}

async function failure(promise: Promise<unknown>): Promise<ExtensionError> {
  try {
    await promise;
  } catch (error) {
    if (ExtensionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

async function wireFailure(promise: Promise<unknown>): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    if (WireError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a JSON-RPC error');
}

function structuredError(result: ToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const error = result._meta?.['io.github.mcp-ext/errors'];
  expect(seed.check('error')(error).valid).toBe(true);
  return error as Record<string, unknown>;
}

describe.each(TEST_LINES)('@ext/transactions end to end on %s', (line) => {
  it('TXN-1: advertises the extension with its settings; the client reads them', async () => {
    const { pair } = await rig(line);
    const settings = getTransactionsSettings(pair.client);
    expect(settings?.id).toBe(TRANSACTIONS_ID);
    expect(settings?.settings).toMatchObject({ version: '1.0', default_timeout_seconds: 300 });
    expect(settings?.settings.compensable_tools).toEqual(['create_ticket', 'link_doc', 'post_message']);
    const tools = await pair.client.listTools();
    expect(tools.find((tool) => tool.name === 'create_ticket')?._meta?.[TRANSACTIONS_ID]).toEqual({
      compensable: true,
      compensation: 'Undo create_ticket',
    });
    expect(tools.find((tool) => tool.name === 'rename_ticket')?._meta?.[TRANSACTIONS_ID]).toBeUndefined();
  });

  it('TXN-3/TXN-7/TXN-10: begin, steps and commit; step results carry the seed TransactionStepResult', async () => {
    const { pair, world } = await rig(line);
    const transaction = await beginTransaction(pair.client, {
      transactionId: 'tx-commit',
      description: 'Create and link',
    });
    expect(transaction.begun).toMatchObject({ transaction_id: 'tx-commit', status: 'active', timeout_seconds: 300 });
    expectSeed('TransactionBegin', { transaction_id: 'tx-commit', description: 'Create and link' });

    const created = await transaction.callTool('create_ticket', { title: 'Migrate' });
    const meta = readStepMeta(created);
    expect(meta).toEqual({
      transaction_id: 'tx-commit',
      step_id: 'step-1',
      status: 'ok',
      compensation: { description: 'Delete ticket T-1', tool: 'delete_ticket', parameters: { ticket_id: 'T-1' } },
    });
    expectSeed('TransactionStepResult', created._meta?.[TRANSACTIONS_ID]);
    const linked = await transaction.callTool(
      'link_doc',
      { ticket_id: 'T-1', doc: 'design.md' },
      { stepId: 'link-design' },
    );
    expect(readStepMeta(linked)?.step_id).toBe('link-design');
    // A read-only tool may run inside the transaction and is not recorded.
    const read = await transaction.callTool('read_ticket', { id: 'T-1' });
    expect(read.isError).not.toBe(true);
    expect(read._meta?.[TRANSACTIONS_ID]).toBeUndefined();

    const committed = await transaction.commit();
    expect(committed).toMatchObject({ transaction_id: 'tx-commit', status: 'committed', steps_committed: 2 });
    expect(await transaction.commit()).toMatchObject({ status: 'committed' });
    const status = await transaction.status();
    expect(status.status).toBe('committed');
    expect(status.steps.map((step) => [step.step_id, step.status])).toEqual([
      ['step-1', 'applied'],
      ['link-design', 'applied'],
    ]);
    expect(world.tickets.get('T-1')?.links).toEqual(['design.md']);
    expect(world.undone).toEqual([]);
    const again = await failure(transaction.rollback());
    expect(again.code).toBe('TRANSACTION_CONFLICT');
  });

  it('TXN-13/TXN-2: rollback compensates newest first; the result validates against the seed schema', async () => {
    const { pair, world } = await rig(line);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-undo' });
    await transaction.callTool('create_ticket', { title: 'A' });
    await transaction.callTool('link_doc', { ticket_id: 'T-1', doc: 'spec.md' });
    await transaction.callTool('post_message', { text: 'hello' });
    // A tool that throws: the error travels as it is and the step is recorded as failed.
    const thrown = await transaction.callTool('post_message', { text: 'boom', fail: true });
    expect(structuredError(thrown).code).toBe('CHAT_UNAVAILABLE');
    // A tool that returns an error result: the result says which step failed.
    const refused = await transaction.callTool('post_message', { text: 'no', refuse: true });
    expect(refused.isError).toBe(true);
    expect(readStepMeta(refused)).toEqual({ transaction_id: 'tx-undo', step_id: 'step-5', status: 'failed' });
    expectSeed('TransactionStepResult', refused._meta?.[TRANSACTIONS_ID]);
    const before = await transaction.status();
    expect(before.steps.map((step) => [step.step_id, step.status, step.error?.code])).toEqual([
      ['step-1', 'applied', undefined],
      ['step-2', 'applied', undefined],
      ['step-3', 'applied', undefined],
      ['step-4', 'failed', 'CHAT_UNAVAILABLE'],
      ['step-5', 'failed', undefined],
    ]);

    const result = await transaction.rollback('the chat is down');
    expectSeed('TransactionRollbackResult', result);
    expectSeed('TransactionRollback', { transaction_id: 'tx-undo', reason: 'the chat is down' });
    expect(result.status).toBe('rolled_back');
    expect(result.reason).toBe('the chat is down');
    expect(result.steps_compensated.map((step) => [step.step_id, step.status])).toEqual([
      ['step-3', 'compensated'],
      ['step-2', 'compensated'],
      ['step-1', 'compensated'],
    ]);
    expect(world.undone).toEqual(['post_message:hello', 'link_doc:spec.md', 'create_ticket:T-1']);
    expect(world.tickets.size).toBe(0);
    expect(world.messages).toEqual([]);

    // Asking again reports the same outcome and runs nothing twice.
    const repeated = await transaction.rollback();
    expect(repeated.steps_compensated).toEqual(result.steps_compensated);
    expect(world.undone).toHaveLength(3);
    const commit = await failure(transaction.commit());
    expect(commit.code).toBe('TRANSACTION_CONFLICT');
    expect(commit.details).toMatchObject({ status: 'rolled_back' });
    const step = await transaction.callTool('create_ticket', { title: 'late' });
    expect(structuredError(step).code).toBe('TRANSACTION_CONFLICT');
    expect(world.tickets.size).toBe(0);
  });

  it('TXN-15: a failing compensation yields partially_rolled_back with its error; rolling back again retries only it', async () => {
    const { pair, world } = await rig(line);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-partial' });
    await transaction.callTool('create_ticket', { title: 'A' });
    await transaction.callTool('link_doc', { ticket_id: 'T-1', doc: 'spec.md' });
    await transaction.callTool('post_message', { text: 'hi' });
    world.unlinkDown = true;
    const partial = await transaction.rollback();
    expectSeed('TransactionRollbackResult', partial);
    expect(partial.status).toBe('partially_rolled_back');
    expect(partial.steps_compensated.map((step) => [step.step_id, step.status])).toEqual([
      ['step-3', 'compensated'],
      ['step-2', 'compensation_failed'],
      ['step-1', 'compensated'],
    ]);
    const error = partial.steps_compensated[1]?.error;
    expect(seed.check('error')(error).valid).toBe(true);
    expect(error).toMatchObject({ code: 'DOCS_UNAVAILABLE', category: 'transient', retry_after_seconds: 5 });
    expect((await transaction.status()).status).toBe('partially_rolled_back');

    world.unlinkDown = false;
    const retried = await transaction.rollback();
    expect(retried.status).toBe('rolled_back');
    expect(world.undone).toEqual(['post_message:hi', 'create_ticket:T-1', 'link_doc:spec.md']);
  });

  it('TXN-16: an idle transaction is rolled back by the sweeper, and is then refused', async () => {
    const { pair, world, tx, store, clock } = await rig(line);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-idle', timeoutSeconds: 30 });
    await transaction.callTool('create_ticket', { title: 'A' });
    clock.now += 29_000;
    expect((await tx.sweep(store)).rolledBack).toEqual([]);
    await transaction.callTool('create_ticket', { title: 'B' });
    clock.now += 29_000;
    expect((await tx.sweep(store)).rolledBack).toEqual([]);
    clock.now += 1_000;
    const report = await tx.sweep(store);
    expect(report.rolledBack).toEqual([expect.objectContaining({ transactionId: 'tx-idle', status: 'rolled_back' })]);
    expect(world.undone).toEqual(['create_ticket:T-2', 'create_ticket:T-1']);
    expect((await tx.sweep(store)).rolledBack).toEqual([]);
    const status = await transaction.status();
    expect(status.status).toBe('rolled_back');
    expect((await failure(transaction.commit())).code).toBe('TRANSACTION_CONFLICT');
  });

  it('TXN-16: a timed-out transaction is rolled back when it is next touched, even without a sweep', async () => {
    const { pair, world, clock } = await rig(line);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-lazy', timeoutSeconds: 5 });
    await transaction.callTool('create_ticket', { title: 'A' });
    clock.now += 6_000;
    const commit = await failure(transaction.commit());
    expect(commit.code).toBe('TRANSACTION_CONFLICT');
    expect(world.undone).toEqual(['create_ticket:T-1']);
    const rollback = await transaction.rollback();
    expect(rollback).toMatchObject({ status: 'rolled_back', trigger: 'timeout' });
  });

  it('TXN-3/TXN-11/TXN-21: duplicate ids, unknown ids and bad params are refused with structured errors', async () => {
    const { pair } = await rig(line);
    await beginTransaction(pair.client, { transactionId: 'tx-dup' });
    const duplicate = await failure(beginTransaction(pair.client, { transactionId: 'tx-dup' }));
    expect(duplicate.code).toBe('TRANSACTION_CONFLICT');

    const raw = await wireFailure(pair.client.request(`${TRANSACTIONS_ID}/status`, { transaction_id: 'tx-none' }));
    expect(raw.code).toBe(-31000);
    expect(seed.check('error')(raw.data).valid).toBe(true);
    expect(raw.data).toMatchObject({ code: 'RESOURCE_NOT_FOUND', category: 'permanent' });
    for (const verb of ['commit', 'rollback']) {
      const error = await wireFailure(pair.client.request(`${TRANSACTIONS_ID}/${verb}`, { transaction_id: 'tx-none' }));
      expect(error.data).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    }
    const invalid = await wireFailure(
      pair.client.request(`${TRANSACTIONS_ID}/begin`, { transaction_id: 'has spaces' }),
    );
    expect(invalid.code).toBe(-32602);
    expect(seed.check('error')(invalid.data).valid).toBe(true);
    expect(invalid.data).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { pointer: '/params/transaction_id' },
    });
    const tooLong = await wireFailure(
      pair.client.request(`${TRANSACTIONS_ID}/begin`, { transaction_id: 'tx-long', timeout_seconds: 999_999 }),
    );
    expect(tooLong.data).toMatchObject({ code: 'INVALID_INPUT', details: { pointer: '/params/timeout_seconds' } });
  });

  it('TXN-5/TXN-6: malformed step markers, unknown transactions and uncompensable tools are refused before running', async () => {
    const { pair, world } = await rig(line);
    const malformed = await pair.client.callTool(
      'create_ticket',
      { title: 'x' },
      { meta: { [TRANSACTIONS_ID]: { transaction_id: 7 } } },
    );
    expect(structuredError(malformed)).toMatchObject({ code: 'INVALID_INPUT', category: 'invalid_input' });
    const unknown = await pair.client.callTool(
      'create_ticket',
      { title: 'x' },
      { meta: { [TRANSACTIONS_ID]: { transaction_id: 'tx-none' } } },
    );
    expect(structuredError(unknown).code).toBe('RESOURCE_NOT_FOUND');
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-rename' });
    const rename = await transaction.callTool('rename_ticket', { id: 'T-9', title: 'y' });
    expect(structuredError(rename).code).toBe('TOOL_NOT_TRANSACTIONAL');
    expect(world.executed).toEqual([]);
    await transaction.callTool('create_ticket', { title: 'A' }, { stepId: 'one' });
    const duplicateStep = await transaction.callTool('create_ticket', { title: 'B' }, { stepId: 'one' });
    expect(structuredError(duplicateStep).code).toBe('TRANSACTION_CONFLICT');
    expect(world.executed).toEqual(['create_ticket:T-1']);
  });

  it('TXN-4: one principal cannot see, commit or roll back another principal’s transaction', async () => {
    const store = new MemoryStore();
    const world = createWorld();
    const alice = await rig(line, { store, world, authInfo: { clientId: 'alice' } });
    const bob = await rig(line, { store, world, authInfo: { clientId: 'bob' } });
    const transaction = await beginTransaction(alice.pair.client, { transactionId: 'tx-shared-name' });
    await transaction.callTool('create_ticket', { title: 'A' });
    for (const verb of ['status', 'commit', 'rollback']) {
      const error = await wireFailure(
        bob.pair.client.request(`${TRANSACTIONS_ID}/${verb}`, { transaction_id: 'tx-shared-name' }),
      );
      expect(error.data).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    }
    const step = await bob.pair.client.callTool(
      'create_ticket',
      { title: 'B' },
      { meta: { [TRANSACTIONS_ID]: { transaction_id: 'tx-shared-name' } } },
    );
    expect(structuredError(step).code).toBe('RESOURCE_NOT_FOUND');
    // The same id is free for Bob: it is a different transaction.
    const bobs = await beginTransaction(bob.pair.client, { transactionId: 'tx-shared-name' });
    await bobs.rollback();
    expect((await transaction.status()).status).toBe('active');
    expect((await transaction.commit()).status).toBe('committed');
    expect(world.undone).toEqual([]);
  });

  it('TXN-19: the operations as tools, for clients that can only call tools', async () => {
    const { pair, world } = await rig(line, { server: { exposeAsTools: true }, tools: true, withClientHalf: false });
    const names = (await pair.client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['begin_transaction', 'commit_transaction', 'rollback_transaction', 'transaction_status']),
    );
    const begun = await pair.client.callTool('begin_transaction', { timeout_seconds: 60 });
    expect(begun.isError).not.toBe(true);
    const id = String(begun.structuredContent?.transaction_id);
    expect(id).toMatch(/^tx-/);
    await pair.client.callTool(
      'create_ticket',
      { title: 'A' },
      { meta: { [TRANSACTIONS_ID]: { transaction_id: id } } },
    );
    const status = await pair.client.callTool('transaction_status', { transaction_id: id });
    expect(status.structuredContent).toMatchObject({
      status: 'active',
      steps: [{ step_id: 'step-1', tool: 'create_ticket' }],
    });
    const rolled = await pair.client.callTool('rollback_transaction', {
      transaction_id: id,
      reason: 'changed my mind',
    });
    expectSeed('TransactionRollbackResult', rolled.structuredContent);
    expect(rolled.structuredContent).toMatchObject({ status: 'rolled_back' });
    expect(world.undone).toEqual(['create_ticket:T-1']);
    const commit = await pair.client.callTool('commit_transaction', { transaction_id: id });
    expect(structuredError(commit).code).toBe('TRANSACTION_CONFLICT');
    const unknown = await pair.client.callTool('transaction_status', { transaction_id: 'tx-none' });
    expect(structuredError(unknown).code).toBe('RESOURCE_NOT_FOUND');
  });

  it('TXN-9/TXN-13: concurrent steps are all recorded, and concurrent rollbacks compensate each step once', async () => {
    const { pair, world } = await rig(line);
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-parallel' });
    const results = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((title) => transaction.callTool('create_ticket', { title })),
    );
    expect(new Set(results.map((result) => readStepMeta(result)?.step_id)).size).toBe(5);
    const outcomes = await Promise.allSettled([transaction.rollback(), transaction.rollback(), transaction.rollback()]);
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') expect(outcome.value.status).toBe('rolled_back');
      else expect(outcome.reason).toMatchObject({ code: 'TRANSACTION_CONFLICT', category: 'transient' });
    }
    expect(outcomes.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(world.undone).toHaveLength(5);
    expect(new Set(world.undone).size).toBe(5);
    expect(world.tickets.size).toBe(0);
    expect((await transaction.status()).status).toBe('rolled_back');
  });

  it('TXN-20: without the extension on the server the client library refuses clearly', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [errorsServer(), idempotencyServer()],
      clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
    });
    open.push(pair);
    expect(getTransactionsSettings(pair.client)).toBeUndefined();
    expect((await failure(beginTransaction(pair.client))).code).toBe('TRANSACTIONS_NOT_SUPPORTED');
  });

  it('TXN-20: a saga across two servers with a failing third step rolls back the first two, last server first', async () => {
    const world = createWorld();
    const tickets = await rig(line, { world });
    const docs = await rig(line, { world });
    const outcome = await runSaga(
      [
        { client: tickets.pair.client, server: 'tickets', tool: 'create_ticket', arguments: { title: 'Launch' } },
        {
          client: docs.pair.client,
          server: 'docs',
          tool: 'post_message',
          arguments: (previous) => ({ text: `created ${String(previous[0]?.structuredContent?.id)}` }),
        },
        { client: tickets.pair.client, server: 'tickets', tool: 'post_message', arguments: { text: 'x', fail: true } },
      ],
      { idPrefix: 'saga-1' },
    );
    expect(outcome.status).toBe('rolled_back');
    if (outcome.status === 'committed') throw new Error('unreachable');
    expect(outcome.failure).toMatchObject({
      phase: 'step',
      index: 2,
      server: 'tickets',
      error: { code: 'CHAT_UNAVAILABLE' },
    });
    expect(
      outcome.participants.map((participant) => [participant.server, participant.status, participant.steps]),
    ).toEqual([
      ['tickets', 'rolled_back', ['step-1']],
      ['docs', 'rolled_back', ['step-1']],
    ]);
    // tickets used last (the failing step), so it is rolled back first, then docs.
    expect(world.undone).toEqual(['create_ticket:T-1', 'post_message:created T-1']);
    expect(world.tickets.size).toBe(0);
    expect(world.messages).toEqual([]);
  });

  it('TXN-20: a saga commits every server when all steps succeed, and reports a partial rollback', async () => {
    const world = createWorld();
    const a = await rig(line, { world });
    const b = await rig(line, { world });
    const committed = await runSaga([
      { client: a.pair.client, tool: 'create_ticket', arguments: { title: 'A' } },
      { client: b.pair.client, tool: 'link_doc', arguments: { ticket_id: 'T-1', doc: 'a.md' } },
    ]);
    expect(committed.status).toBe('committed');
    expect(committed.participants.map((participant) => participant.status)).toEqual(['committed', 'committed']);
    expect(committed.results).toHaveLength(2);

    world.unlinkDown = true;
    const partial = await runSaga([
      { client: a.pair.client, tool: 'create_ticket', arguments: { title: 'B' } },
      { client: b.pair.client, tool: 'link_doc', arguments: { ticket_id: 'T-2', doc: 'b.md' } },
      { client: b.pair.client, tool: 'post_message', arguments: { text: 'x', fail: true } },
    ]);
    expect(partial.status).toBe('partially_rolled_back');
    expect(partial.participants[1]).toMatchObject({
      server: 'server-2',
      status: 'partially_rolled_back',
      stepsCompensated: [{ step_id: 'step-1', status: 'compensation_failed', error: { code: 'DOCS_UNAVAILABLE' } }],
    });
    expect(partial.participants[0]).toMatchObject({ server: 'server-1', status: 'rolled_back' });
  });
});

describe('@ext/transactions: a step outliving its transaction', () => {
  it('TXN-17: a step still running at the timeout is reported unknown, then compensated when it turns out to have applied', async () => {
    const { pair, world, tx, store, clock } = await rig('v1');
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-slow', timeoutSeconds: 10 });
    await transaction.callTool('create_ticket', { title: 'first' });
    let release = (): void => undefined;
    world.gate = new Promise((resolve) => {
      release = resolve;
    });
    const waiting = new Promise<void>((resolve) => {
      world.onWait = resolve;
    });
    const slow = transaction.callTool('create_ticket', { title: 'wait' });
    await waiting;
    clock.now += 11_000;
    await tx.sweep(store);
    const abandoned = await transaction.status();
    expect(abandoned.status).toBe('partially_rolled_back');
    expect(abandoned.steps_compensated?.map((step) => [step.step_id, step.status, step.error?.code])).toEqual([
      ['step-2', 'compensation_failed', 'STEP_OUTCOME_UNKNOWN'],
      ['step-1', 'compensated', undefined],
    ]);
    expectSeed('TransactionRollbackResult', {
      transaction_id: 'tx-slow',
      steps_compensated: abandoned.steps_compensated,
    });

    release();
    const late = await slow;
    expect(structuredError(late)).toMatchObject({
      code: 'TRANSACTION_CONFLICT',
      details: { step_id: 'step-2', step_status: 'compensated' },
    });
    expect(world.undone).toEqual(['create_ticket:T-1', 'create_ticket:T-2']);
    expect(world.tickets.size).toBe(0);
    const settled = await transaction.status();
    expect(settled.status).toBe('rolled_back');
  });
});

describe('@ext/transactions configuration', () => {
  it('TXN-1: refuses to compose without @ext/idempotency, naming it', () => {
    expect(() => composeServer([errorsServer(), transactionsServer()])).toThrow(/@ext\/idempotency/);
  });

  it('validates options when the factory is called, naming the option', () => {
    expect(() => transactionsServer({ defaultTimeoutSeconds: 0 })).toThrow(/defaultTimeoutSeconds/);
    expect(() => transactionsServer({ compensations: { x: {} as never } })).toThrow(/compensations\.x/);
    expect(() => transactionsServer({ sweepIntervalMs: -1 })).toThrow(/sweepIntervalMs/);
    expect(() => transactionsServer({ leaseSeconds: 10, compensationTimeoutSeconds: 30 })).toThrow(/leaseSeconds/);
    // Given as null from JavaScript, a clock is refused rather than taken for the default.
    expect(() => transactionsServer({ now: null as never })).toThrow(/"now" must be a function/);
    const error = (() => {
      try {
        transactionsServer({ maxTimeoutSeconds: 10 });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
  });

  it('registerTransactionTools needs exposeAsTools', async () => {
    const tx = transactionsServer({ sweepIntervalMs: 0 });
    await expect(
      createTestPair({
        line: 'v1',
        serverExtensions: [idempotencyServer(), tx],
        setup: (server) => {
          registerTransactionTools(server);
        },
      }),
    ).rejects.toThrow(/exposeAsTools/);
  });
});

describe('@ext/transactions sweeper timer', () => {
  let tx: TransactionsServerExtension | undefined;
  beforeEach(() => {
    tx = undefined;
  });
  afterEach(() => tx?.stop());

  it('TXN-16: the sweeper started by start(store) rolls back an idle transaction on its own', async () => {
    const world = createWorld();
    const store = new MemoryStore();
    tx = transactionsServer({ compensations: worldCompensations(world), sweepIntervalMs: 20 });
    const pair = await createTestPair({
      line: 'v1',
      serverExtensions: [errorsServer(), idempotencyServer(), tx],
      clientExtensions: [errorsClient(), idempotencyClient(), transactionsClient()],
      serverOptions: { store },
      setup: (server) => {
        registerWorldTools(server, world);
      },
    });
    open.push(pair);
    expect(await tx.start(store)).toEqual({ rolledBack: [], resumed: [], failed: [] });
    const transaction = await beginTransaction(pair.client, { transactionId: 'tx-timer', timeoutSeconds: 1 });
    await transaction.callTool('create_ticket', { title: 'A' });
    await vi.waitFor(
      () => {
        expect(world.undone).toEqual(['create_ticket:T-1']);
      },
      { timeout: 5_000, interval: 20 },
    );
    expect((await transaction.status()).status).toBe('rolled_back');
  });
});

/** Keeps the type of a client in signatures used by other test files. */
export type { ExtendedClient };
