/**
 * One outcome and one audit entry per confirmation decision (CONF-13),
 * through a real client and server: every decision path adds exactly one
 * entry to the audit stream, with its event and fields; a fail-closed
 * refusal, a replay the core refuses after all and a call that follows
 * several shared questions are each recorded once; and a decision whose
 * entry cannot be written takes back what it changed, so no approval is
 * spent unrecorded.
 */
import {
  MemoryStore,
  type AppendOptions,
  type ElicitationRequest,
  type ElicitationResponse,
  type ToolResult,
} from '@ext/core';
import { silentLogger, type JsonValue } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalDesk } from './approvals/desk.js';
import type { ApprovalRequestInput } from './approvals/record.js';
import type { ConfirmationAuditEntry, ConfirmationAuditEvent } from './audit.js';
import {
  confirmationClient,
  confirmationElicitationHandler,
  getConfirmationRequired,
  grantMeta,
  requestGrant,
} from './client.js';
import { CONFIRMATION_ID } from './index.js';
import {
  CONFIRM_INPUT_KEY,
  confirmationServer,
  readConfirmationAudit,
  type ConfirmationServerOptions,
} from './server.js';
import { deleteRepoTool, ForgetfulStore } from './test-fixtures/gated-tools.js';

/** A store whose audit stream refuses the next `failAudits` appends, and that can forget an idempotency record once. */
class TestStore extends ForgetfulStore {
  failAudits = 0;

  override async append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    if (this.failAudits > 0 && stream.endsWith(':audit')) {
      this.failAudits -= 1;
      throw new Error('the audit stream is unavailable');
    }
    return super.append(stream, value, options);
  }
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface Options {
  readonly server?: ConfirmationServerOptions;
  /** The client half of the extension (the token path). Default true. */
  readonly tokens?: boolean;
  readonly idempotency?: boolean;
  readonly onElicit?: (request: ElicitationRequest) => Promise<ElicitationResponse>;
}

async function connect(line: TestLine, store: TestStore, ran: string[], options: Options = {}): Promise<TestPair> {
  const idempotency = options.idempotency === true;
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), confirmationServer(options.server), idempotency && idempotencyServer()],
    clientExtensions: [
      errorsClient(),
      options.tokens !== false && confirmationClient(),
      idempotency && idempotencyClient(),
    ],
    setup: deleteRepoTool(ran),
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    onElicit: options.onElicit,
  });
  open.push(pair);
  return pair;
}

async function entries(store: MemoryStore): Promise<ConfirmationAuditEntry[]> {
  return (await readConfirmationAudit(store, { limit: 1000 })).map((item) => item.entry);
}

/** Runs `act`, expecting the audit stream to grow by exactly `events`; returns its result and the entries added. */
async function decided<T>(
  store: MemoryStore,
  events: readonly ConfirmationAuditEvent[],
  act: () => Promise<T>,
): Promise<{ result: T; added: ConfirmationAuditEntry[] }> {
  const before = (await entries(store)).length;
  const result = await act();
  const added = (await entries(store)).slice(before);
  expect(added.map((entry) => entry.event)).toEqual(events);
  return { result, added };
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

const yes = (): Promise<boolean> => Promise.resolve(true);
const who = { tool: 'delete_repo', riskLevel: 'destructive' } as const;

describe.each(TEST_LINES)('one audit entry per decision on %s', (line) => {
  it('tokens: issued, redeemed, refused, and a batch approved', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const { client } = await connect(line, store, ran);
    const held = await decided(store, ['token_issued'], () => client.callTool('delete_repo', { repo: 'a' }));
    expect(held.added[0]).toMatchObject({ ...who, ref: expect.any(String) as unknown });
    const token = getConfirmationRequired(held.result)?.confirmation_token ?? '';
    const meta = { meta: { [CONFIRMATION_ID]: { confirmation_token: token } } };
    const redeemed = await decided(store, ['token_redeemed'], () =>
      client.callTool('delete_repo', { repo: 'a' }, meta),
    );
    expect(redeemed.added[0]).toMatchObject(who);
    const replayed = await decided(store, ['token_refused'], () => client.callTool('delete_repo', { repo: 'a' }, meta));
    expect(getStructuredError(replayed.result)?.code).toBe('CONFIRMATION_TOKEN_REPLAYED');
    expect(replayed.added[0]).toMatchObject({ tool: 'delete_repo', code: 'CONFIRMATION_TOKEN_REPLAYED' });
    expect(replayed.added[0]?.riskLevel).toBeUndefined();
    const next = getConfirmationRequired(await client.callTool('delete_repo', { repo: 'b' }));
    const batch = await decided(store, ['batch_approved'], () =>
      client.request(`${CONFIRMATION_ID}/approve`, { confirmation_tokens: [next?.confirmation_token ?? ''] }),
    );
    expect(batch.added[0]).toMatchObject({ count: 1, batchId: batch.result.batch_id });
    expect(ran).toEqual(['a']);
  });

  it('grants: issued, used, and refused once exhausted', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const { client } = await connect(line, store, ran, { server: { grants: { maxCalls: 5, maxDurationSeconds: 60 } } });
    await client.listTools();
    const grant = await decided(store, ['grant_issued'], () =>
      requestGrant(client, 'delete_repo', { maxCalls: 1, durationSeconds: 30, confirm: yes }),
    );
    expect(grant.added[0]).toMatchObject({ tool: 'delete_repo', count: 1 });
    const meta = { meta: grantMeta(grant.result ?? { grant_id: '' }) };
    const used = await decided(store, ['grant_used'], () => client.callTool('delete_repo', { repo: 'a' }, meta));
    expect(textOf(used.result)).toBe('deleted a');
    const refused = await decided(store, ['grant_refused'], () => client.callTool('delete_repo', { repo: 'b' }, meta));
    expect(getStructuredError(refused.result)?.code).toBe('CONFIRMATION_GRANT_EXHAUSTED');
    expect(ran).toEqual(['a']);
  });

  it('in-band answers: a yes runs the call, a no refuses it', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    let answer = true;
    const onElicit = confirmationElicitationHandler(() => Promise.resolve(answer));
    const { client } = await connect(line, store, ran, { tokens: false, onElicit });
    const accepted = await decided(store, ['elicitation_accepted'], () =>
      client.callTool('delete_repo', { repo: 'a' }),
    );
    expect(accepted.added[0]).toMatchObject(who);
    answer = false;
    const declined = await decided(store, ['elicitation_declined'], () =>
      client.callTool('delete_repo', { repo: 'b' }),
    );
    expect(getStructuredError(declined.result)?.code).toBe('CONFIRMATION_DECLINED');
    expect(ran).toEqual(['a']);
  });

  it('an in-band answer to no question asked approves nothing: recorded, then the question is asked', async () => {
    if (line !== 'v2-modern') return;
    const store = new TestStore();
    const ran: string[] = [];
    const onElicit = confirmationElicitationHandler(() => Promise.resolve(false));
    const { client } = await connect(line, store, ran, { tokens: false, onElicit });
    const accept = { [CONFIRM_INPUT_KEY]: { action: 'accept', content: { confirm: true } } };
    // Two requests, two decisions: the unasked answer (the server asks), then the person's "no" on the retry.
    const unasked = await decided(store, ['elicitation_unasked', 'elicitation_declined'], () =>
      client.request('tools/call', { name: 'delete_repo', arguments: { repo: 'a' }, inputResponses: accept }),
    );
    expect(unasked.added[0]).toMatchObject(who);
    expect(ran).toEqual([]);
  });

  it('fail closed: a client that cannot be asked, and an operator with no desk (no entry before)', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const { client } = await connect(line, store, ran, { tokens: false });
    const refused = await decided(store, ['refused_no_channel'], () => client.callTool('delete_repo', { repo: 'a' }));
    expect(getStructuredError(refused.result)?.code).toBe('CONFIRMATION_REQUIRED');
    expect(refused.added[0]).toMatchObject(who);
    const operator = await connect(line, store, ran, { server: { approver: () => 'operator' } });
    const noDesk = await decided(store, ['refused_no_channel'], () =>
      operator.client.callTool('delete_repo', { repo: 'b' }),
    );
    expect(getStructuredError(noDesk.result)).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      details: { tool: 'delete_repo' },
    });
    expect(noDesk.added[0]).toMatchObject(who);
    expect(ran).toEqual([]);
  });

  it('a replay is recorded before it goes on, so one the core refuses after all has its entry too', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const { client } = await connect(line, store, ran, { idempotency: true });
    const key = idempotencyMeta('delete-a-0001');
    const held = getConfirmationRequired(await client.callTool('delete_repo', { repo: 'a' }, { meta: key }));
    const token = { ...key, [CONFIRMATION_ID]: { confirmation_token: held?.confirmation_token ?? '' } };
    await client.callTool('delete_repo', { repo: 'a' }, { meta: token });
    const replayed = await decided(store, ['replayed_unasked'], () =>
      client.callTool('delete_repo', { repo: 'a' }, { meta: key }),
    );
    expect(textOf(replayed.result)).toBe('deleted a');
    expect(replayed.added[0]).toMatchObject(who);
    store.forgetNextRecord = true;
    const refused = await decided(store, ['replayed_unasked'], () =>
      client.callTool('delete_repo', { repo: 'a' }, { meta: key }),
    );
    expect(getStructuredError(refused.result)?.code).toBe('APPROVAL_REQUIRED');
    expect(ran).toEqual(['a']);
  });

  it('an entry that cannot be written spends no token and counts no grant use', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const { client } = await connect(line, store, ran, { server: { grants: { maxCalls: 5, maxDurationSeconds: 60 } } });
    const token = getConfirmationRequired(await client.callTool('delete_repo', { repo: 'a' }))?.confirmation_token;
    const meta = { meta: { [CONFIRMATION_ID]: { confirmation_token: token ?? '' } } };
    store.failAudits = 1;
    expect((await client.callTool('delete_repo', { repo: 'a' }, meta)).isError).toBe(true);
    expect(ran).toEqual([]);
    expect(textOf(await client.callTool('delete_repo', { repo: 'a' }, meta))).toBe('deleted a');

    await client.listTools();
    const grant = await requestGrant(client, 'delete_repo', { maxCalls: 1, durationSeconds: 30, confirm: yes });
    const drawn = { meta: grantMeta(grant ?? { grant_id: '' }) };
    store.failAudits = 1;
    expect((await client.callTool('delete_repo', { repo: 'b' }, drawn)).isError).toBe(true);
    expect(textOf(await client.callTool('delete_repo', { repo: 'b' }, drawn))).toBe('deleted b');
    expect(ran).toEqual(['a', 'b']);
    expect((await entries(store)).map((entry) => entry.event)).toEqual([
      'token_issued',
      'token_redeemed',
      'grant_issued',
      'grant_used',
    ]);
  });

  it('a held call: requested, attached, approved, then claimed and its outcome', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    const desk = approvalDesk({ store });
    const server = { approver: 'operator', approvals: desk, holdSeconds: 0 } as const;
    const { client } = await connect(line, store, ran, { server, tokens: false });
    const first = await decided(store, ['approval_requested'], () => client.callTool('delete_repo', { repo: 'a' }));
    const id = (getStructuredError(first.result)?.details as { approval_id: string }).approval_id;
    expect(first.added[0]).toMatchObject({ ...who, ref: id });
    await decided(store, ['approval_attached'], () => client.callTool('delete_repo', { repo: 'a' }));
    const approved = await decided(store, ['approval_approved'], () => desk.decide(id, { approve: true, by: 'op' }));
    expect(approved.added[0]).toMatchObject({ ...who, principal: 'op', ref: id });
    // Two transitions of the request, each its own decision: the claim before the run, the outcome after it.
    await decided(store, ['approval_attached', 'approval_claimed', 'approval_executed'], () =>
      client.callTool('delete_repo', { repo: 'a' }),
    );
    expect(ran).toEqual(['a']);
  });
});

describe.each(['v1', 'v2-legacy'] as const)('calls sharing in-band questions on %s (CONF-32)', (line) => {
  it('a call that follows two questions in turn is recorded as sharing once', async () => {
    const store = new TestStore();
    const ran: string[] = [];
    let fail: (error: Error) => void = () => undefined;
    let questions = 0;
    const onElicit = async (): Promise<ElicitationResponse> => {
      questions += 1;
      // The first question is never answered (its client failed); the next gets a yes.
      if (questions === 1) await new Promise<never>((_, reject) => (fail = reject));
      return { action: 'accept', content: { confirm: true } };
    };
    const { client } = await connect(line, store, ran, { tokens: false, onElicit });
    const calls = [0, 1, 2].map(() => client.callTool('delete_repo', { repo: 'a' }));
    for (let attempt = 0; questions < 1 || (await entries(store)).length < 2; attempt++) {
      if (attempt > 500) throw new Error('the calls never shared the question');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    fail(new Error('nobody answered'));
    const results = await Promise.all(calls);
    expect(results.filter((result) => result.isError === true)).toHaveLength(1);
    expect(results.filter((result) => textOf(result) === 'deleted a')).toHaveLength(2);
    expect(ran).toEqual(['a']);
    const events = (await entries(store)).map((entry) => entry.event);
    expect(events.filter((event) => event === 'elicitation_shared')).toHaveLength(2);
    expect(events.filter((event) => event === 'elicitation_accepted')).toHaveLength(1);
  });
});

describe('the desk, when an entry cannot be written (CONF-26)', () => {
  const input: ApprovalRequestInput = {
    principal: 'agent-1',
    tool: 'write_file',
    argsDigest: 'digest-a',
    toolDigest: 'tool-1',
    riskLevel: 'destructive',
    message: 'Write a.txt',
    arguments: { path: 'a.txt' },
  };

  it('opens, decides and claims nothing unrecorded: each step can be taken again', async () => {
    const store = new TestStore();
    const desk = approvalDesk({ store });
    store.failAudits = 1;
    await expect(desk.open(input)).rejects.toThrow(/audit stream/);
    expect(await desk.list()).toEqual([]);
    const { record, created } = await desk.open(input);
    expect(created).toBe(true);
    store.failAudits = 1;
    await expect(desk.decide(record.id, { approve: true, by: 'op' })).rejects.toThrow(/audit stream/);
    expect(await desk.get(record.id)).toMatchObject({ state: 'pending' });
    await desk.decide(record.id, { approve: true, by: 'op' });
    store.failAudits = 1;
    await expect(desk.claim(record.id)).rejects.toThrow(/audit stream/);
    expect(await desk.claim(record.id)).toMatchObject({ id: record.id });
    expect((await entries(store)).map((entry) => entry.event)).toEqual([
      'approval_requested',
      'approval_approved',
      'approval_claimed',
    ]);
  });
});
