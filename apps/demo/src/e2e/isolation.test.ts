/**
 * Two authenticated principals, alice and bob, over real HTTP with real
 * clients: nothing alice holds (confirmation tokens and grants, session
 * state, idempotency keys, transactions, checkpoints, subscriptions, quota,
 * uploads, permission sessions) is usable by bob. Each case creates alice's
 * record on instance A, has bob try it on instance B, and has alice use it
 * on B afterwards, proving the record was there and untouched. On the memory
 * store A and B are one server; over Redis they are two servers sharing it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationClient, getConfirmationRequired, grantMeta, requestGrant } from '@ext/confirmation/client';
import { costClient, getCostInfo, getCostStatus } from '@ext/cost/client';
import { dataReferencesClient } from '@ext/data-references/client';
import { EVENTS_ID } from '@ext/events';
import { eventsClient, pollEvents } from '@ext/events/client';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { binaryInput, multimodalClient } from '@ext/multimodal/client';
import { PERMISSIONS_ID } from '@ext/permissions';
import { currentSession, negotiateScopes, permissionsClient } from '@ext/permissions/client';
import { SESSION_STATE_ID } from '@ext/session-state';
import { getSessionStateMeta, sessionStateClient } from '@ext/session-state/client';
import {
  getStreamingResult,
  streamCall,
  streamingClient,
  type CheckpointInput,
  type StreamUpdate,
} from '@ext/streaming/client';
import { TRANSACTIONS_ID } from '@ext/transactions';
import { beginTransaction, transactionsClient } from '@ext/transactions/client';
import type { ExtendedClient, ToolResult } from '@ext/core';
import { afterAll, describe, expect, it } from 'vitest';
import { dig } from '../tour/explain.js';
import {
  createTicket,
  expectOk,
  expectRefused,
  methodRefusal,
  PIXEL_PNG,
  readTicket,
  RedisRun,
  STACKS,
  ticketIdOf,
  ticketTitles,
  withWorld,
  type Composition,
  type World,
} from './isolation-support.js';
import { ADMIN_SCOPE, EXPORT_QUOTA } from '../tools/tool-limits.js';

const REDIS_URL = process.env.REDIS_URL === '' ? undefined : process.env.REDIS_URL;

/** 1. delete_ticket held for alice: bob replays her token. */
async function confirmationToken(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [confirmationClient()]);
  const id = await createTicket(alice, "Alice's draft");
  const held = getConfirmationRequired(await alice.callTool('delete_ticket', { id }));
  expect(held?.confirmation_token).toBeTypeOf('string');
  const meta = { [CONFIRMATION_ID]: { confirmation_token: held?.confirmation_token } };
  expectRefused(await bob.callTool('delete_ticket', { id }, { meta }), 'CONFIRMATION_PRINCIPAL_MISMATCH');
  expect(await readTicket(bob, id)).toMatchObject({ id });
  // The token is still alice's, unused: she redeems it on the other instance.
  const redeemed = expectOk(await aliceOnB.callTool('delete_ticket', { id }, { meta }));
  expect(dig(redeemed._meta, CONFIRMATION_ID)).toMatchObject({ status: 'confirmed', via: 'token' });
  expect(await readTicket(alice, id)).toBeUndefined();
}

/** 2a. The tracker offers no grants: nobody gets one, and a grant_id skips nothing. */
async function trackerGrants(world: World): Promise<void> {
  const { alice, bob } = await world.callers(() => [confirmationClient()]);
  const asked = requestGrant(alice, 'delete_ticket', {
    maxCalls: 1,
    durationSeconds: 60,
    confirm: () => Promise.resolve(true),
  });
  expect(await methodRefusal(asked)).toBe('CONFIRMATION_GRANTS_DISABLED');
  const id = await createTicket(alice, 'Not granted');
  // A well-formed grant id (256 bits, as the server mints them) that no grant holds.
  const forged = await bob.callTool(
    'delete_ticket',
    { id },
    { meta: grantMeta({ grant_id: randomBytes(32).toString('base64url') }) },
  );
  expectRefused(forged, 'CONFIRMATION_GRANT_INVALID');
  expect(await readTicket(alice, id)).toMatchObject({ id });
}

/** 2b. A grant alice was given for delete_ticket, presented by bob. */
async function confirmationGrant(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [confirmationClient()]);
  const id = await createTicket(alice, 'Granted');
  const grant = await requestGrant(alice, 'delete_ticket', {
    maxCalls: 2,
    durationSeconds: 300,
    confirm: () => Promise.resolve(true),
  });
  expect(grant?.grant_id).toBeTypeOf('string');
  const meta = grantMeta({ grant_id: String(grant?.grant_id) });
  expectRefused(await bob.callTool('delete_ticket', { id }, { meta }), 'CONFIRMATION_PRINCIPAL_MISMATCH');
  expect(await readTicket(bob, id)).toMatchObject({ id });
  // Bob used none of its calls: alice still has both, on the other instance.
  const used = expectOk(await aliceOnB.callTool('delete_ticket', { id }, { meta }));
  expect(dig(used._meta, CONFIRMATION_ID)).toMatchObject({
    status: 'confirmed',
    via: 'grant',
    grant_calls_remaining: 1,
  });
  expect(await readTicket(alice, id)).toBeUndefined();
}

/** 3. The view alice chose with set_view, sealed in her session state. */
async function sessionState(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [sessionStateClient()]);
  const closed = await createTicket(alice, 'Done already');
  expectOk(await alice.callTool('close_ticket', { id: closed }));
  await createTicket(alice, 'Still open');
  const sealed = getSessionStateMeta(expectOk(await alice.callTool('set_view', { status: 'closed' })))?.session_state;
  expect(sealed).toBeTypeOf('string');
  const meta = { [SESSION_STATE_ID]: { session_state: sealed } };
  const replayed = await bob.callTool('list_tickets', {}, { meta });
  expect(expectRefused(replayed, 'SESSION_STATE_INVALID')?.details?.reason).toBe('not_authentic');
  expect(replayed.structuredContent).toBeUndefined();
  // Alice's token opens on the other instance: it lists closed tickets only.
  const mine = dig(expectOk(await aliceOnB.callTool('list_tickets', {}, { meta })).structuredContent, 'tickets');
  expect(mine).toEqual([expect.objectContaining({ id: closed, status: 'closed' })]);
}

/** 4. The idempotency key alice used, with the same (then other) arguments. */
async function idempotencyKey(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [idempotencyClient({ autoKey: false })]);
  const key = `iso-${randomUUID()}`;
  const args = { title: 'Exactly once, for alice' };
  const first = expectOk(await alice.callTool('create_ticket', args, { meta: idempotencyMeta(key) }));
  const again = expectOk(await aliceOnB.callTool('create_ticket', args, { meta: idempotencyMeta(key) }));
  expect(getReplayInfo(again)).toMatchObject({ idempotency_key: key, was_replay: true });
  expect(ticketIdOf(again)).toBe(ticketIdOf(first));
  // Bob's key is his own: the tool runs for him, nothing of alice's comes back.
  const bobs = expectOk(await bob.callTool('create_ticket', args, { meta: idempotencyMeta(key) }));
  expect(getReplayInfo(bobs)).toMatchObject({ idempotency_key: key, was_replay: false });
  expect(ticketIdOf(bobs)).not.toBe(ticketIdOf(first));
  // Other arguments under a key alice holds: no IDEMPOTENCY_CONFLICT for bob.
  const other = `iso-${randomUUID()}`;
  expectOk(await alice.callTool('create_ticket', { title: 'Alice, other key' }, { meta: idempotencyMeta(other) }));
  const bobOther = expectOk(
    await bob.callTool('create_ticket', { title: 'Bob, same key' }, { meta: idempotencyMeta(other) }),
  );
  expect(getReplayInfo(bobOther)?.was_replay).toBe(false);
  expect(await ticketTitles(alice)).toEqual([args.title, args.title, 'Alice, other key', 'Bob, same key']);
}

/** 5. Alice's open transaction: bob reads, commits, rolls back, adds a step. */
async function transaction(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [idempotencyClient(), transactionsClient()]);
  const tx = await beginTransaction(alice, { description: "alice's transaction" });
  const id = ticketIdOf(expectOk(await tx.callTool('create_ticket', { title: 'Inside the transaction' })));
  for (const verb of ['status', 'commit', 'rollback']) {
    expect(await methodRefusal(bob.request(`${TRANSACTIONS_ID}/${verb}`, { transaction_id: tx.id })), verb).toBe(
      'RESOURCE_NOT_FOUND',
    );
  }
  const step = await bob.callTool(
    'create_ticket',
    { title: 'Bob sneaks in' },
    { meta: { [TRANSACTIONS_ID]: { transaction_id: tx.id } } },
  );
  expectRefused(step, 'RESOURCE_NOT_FOUND');
  expect(await ticketTitles(bob)).toEqual(['Inside the transaction']);
  // The id names nothing of alice's for bob: he may begin his own under it.
  expect((await beginTransaction(bob, { transactionId: tx.id })).begun.status).toBe('active');
  const status = await aliceOnB.request(`${TRANSACTIONS_ID}/status`, { transaction_id: tx.id });
  expect(status).toMatchObject({
    transaction_id: tx.id,
    status: 'active',
    steps: [expect.objectContaining({ tool: 'create_ticket' })],
  });
  const rolled = await aliceOnB.request(`${TRANSACTIONS_ID}/rollback`, { transaction_id: tx.id });
  expect(rolled).toMatchObject({
    status: 'rolled_back',
    steps_compensated: [expect.objectContaining({ status: 'compensated' })],
  });
  expect(await readTicket(alice, id)).toBeUndefined();
}

interface Streamed {
  readonly chunks: { sequence: number; checkpointToken?: string | undefined }[];
  readonly result: ToolResult | undefined;
}

async function collect(updates: AsyncIterable<StreamUpdate>): Promise<Streamed> {
  const chunks: Streamed['chunks'] = [];
  let result: ToolResult | undefined;
  for await (const update of updates) {
    if (update.type === 'stream_chunk') chunks.push(update);
    else if (update.type === 'result') result = update.result;
  }
  return { chunks, result };
}

async function exportsLeft(client: ExtendedClient): Promise<number | undefined> {
  return (await getCostStatus(client, ['export_report']))?.tools[0]?.quota?.remaining;
}

/** 6. A checkpoint of alice's export: bob resumes the operation. */
async function checkpoint(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [streamingClient(), costClient()]);
  for (const title of ['Row one', 'Row two']) await createTicket(alice, title);
  const call = streamCall(alice, 'export_report', {});
  const first = await collect(call);
  expectOk(first.result as ToolResult);
  expect(first.chunks.map((chunk) => chunk.sequence)).toEqual([0, 1, 2]);
  const from: CheckpointInput = {
    operationId: call.operationId,
    checkpointToken: String(first.chunks[0]?.checkpointToken),
  };
  const bobBefore = await exportsLeft(bob);
  const stolen = await collect(streamCall(bob, 'export_report', {}, { resumeFrom: from }));
  expectRefused(stolen.result as ToolResult, 'CHECKPOINT_NOT_FOUND');
  expect(stolen.chunks).toEqual([]);
  expect(await exportsLeft(bob)).toBe(bobBefore);
  // Alice resumes on the other instance, after the header.
  const resumed = await collect(streamCall(aliceOnB, 'export_report', {}, { resumeFrom: from }));
  expect(getStreamingResult(expectOk(resumed.result as ToolResult))).toMatchObject({
    operation_id: call.operationId,
    resumed: true,
  });
  expect(resumed.chunks.map((chunk) => chunk.sequence)).toEqual([1, 2]);
}

/** 7. Alice's event subscription: bob polls, streams, unsubscribes, and subscribes under its id. */
async function subscription(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [eventsClient()]);
  const subscriptionId = `alice-${randomUUID()}`;
  const subscribe = { events: ['ticket_created'], subscription_id: subscriptionId, delivery: 'poll' };
  expect(await alice.request(`${EVENTS_ID}/subscribe`, subscribe)).toMatchObject({ status: 'active' });
  const id = await createTicket(alice, 'Announced');
  for (const verb of ['poll', 'unsubscribe', 'stream']) {
    const answer = bob.request(`${EVENTS_ID}/${verb}`, { subscription_id: subscriptionId }, { timeoutMs: 10_000 });
    expect(await methodRefusal(answer), verb).toBe('SUBSCRIPTION_NOT_FOUND');
  }
  // Under alice's id bob subscribes for himself; her subscription is not replaced.
  expect(await bob.request(`${EVENTS_ID}/subscribe`, subscribe)).toMatchObject({ status: 'active' });
  const polled = await pollEvents(aliceOnB, subscriptionId);
  expect(polled).toMatchObject({ status: 'active' });
  expect(polled?.events.map((event) => dig(event.payload, 'id'))).toEqual([id]);
}

/** 8. Alice spends her whole export quota; bob's is untouched. */
async function quota(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [costClient()]);
  for (let used = 1; used <= EXPORT_QUOTA; used += 1) {
    const exported = expectOk(await alice.callTool('export_report', {}));
    expect(getCostInfo(exported)?.quota?.remaining).toBe(EXPORT_QUOTA - used);
  }
  // The counter is shared by the instances: alice is refused on B too.
  expectRefused(await aliceOnB.callTool('export_report', {}), 'QUOTA_EXHAUSTED');
  expect(await exportsLeft(bob)).toBe(EXPORT_QUOTA);
  const bobs = expectOk(await bob.callTool('export_report', {}));
  expect(getCostInfo(bobs)?.quota).toMatchObject({ used: 1, remaining: EXPORT_QUOTA - 1 });
  expect(await exportsLeft(aliceOnB)).toBe(0);
}

/** 9a. An image alice uploaded out of band, attached by bob by its reference. */
async function upload(world: World): Promise<void> {
  const halves = () => [dataReferencesClient(), multimodalClient({ mimeTypes: ['image/*'], minOutOfBandBytes: 0 })];
  const { alice, bob, aliceOnB } = await world.callers(halves);
  const id = await createTicket(alice, 'Screenshot of the bug');
  const image = await binaryInput(alice, PIXEL_PNG, { mimeType: 'image/png' });
  expect(dig(image, 'ref_id')).toBeTypeOf('string');
  expectRefused(await bob.callTool('attach_image', { id, image }), 'REFERENCE_NOT_FOUND');
  expect((await readTicket(bob, id))?.attachments).toBeUndefined();
  const attached = expectOk(await aliceOnB.callTool('attach_image', { id, image }));
  expect(dig(attached.structuredContent, 'attachment', 'bytes')).toBe(PIXEL_PNG.length);
  expect((await readTicket(alice, id))?.attachments).toHaveLength(1);
}

/** 9b. The admin scope alice negotiated: bob presents her permissions session. */
async function permissionSession(world: World): Promise<void> {
  const { alice, bob, aliceOnB } = await world.callers(() => [permissionsClient()]);
  const id = await createTicket(alice, 'Closed, to purge');
  expectOk(await alice.callTool('close_ticket', { id }));
  expect((await negotiateScopes(alice, [ADMIN_SCOPE]))?.granted_scopes).toContain(ADMIN_SCOPE);
  const meta = { [PERMISSIONS_ID]: { session_token: currentSession(alice)?.token } };
  const check = await bob.request(`${PERMISSIONS_ID}/check`, {
    tool: 'purge_closed_tickets',
    scopes_held: [ADMIN_SCOPE],
    _meta: meta,
  });
  expect(check).toMatchObject({ allowed: false, missing_scopes: [ADMIN_SCOPE] });
  expectRefused(await bob.callTool('purge_closed_tickets', {}, { meta }), 'SESSION_EXPIRED');
  expect(await readTicket(bob, id)).toMatchObject({ id, status: 'closed' });
  const purged = expectOk(await aliceOnB.callTool('purge_closed_tickets', {}, { meta }));
  expect(dig(purged.structuredContent, 'purged')).toEqual([id]);
}

interface IsolationCase {
  readonly name: string;
  readonly composition: Composition;
  readonly run: (world: World) => Promise<void>;
}

const CASES: readonly IsolationCase[] = [
  { name: "redeem alice's confirmation token", composition: 'tracker', run: confirmationToken },
  {
    name: 'get or present a confirmation grant on the tracker (grants are off)',
    composition: 'tracker',
    run: trackerGrants,
  },
  { name: "use alice's confirmation grant (grants on)", composition: 'grants', run: confirmationGrant },
  { name: "read alice's session state", composition: 'tracker', run: sessionState },
  { name: "replay alice's idempotency key", composition: 'tracker', run: idempotencyKey },
  { name: "read, commit, roll back or join alice's transaction", composition: 'tracker', run: transaction },
  { name: "resume alice's streaming checkpoint", composition: 'tracker', run: checkpoint },
  {
    name: "poll, stream, unsubscribe or replace alice's event subscription",
    composition: 'tracker',
    run: subscription,
  },
  { name: "use up alice's export quota (or use hers)", composition: 'tracker', run: quota },
  { name: "attach alice's uploaded image by its reference", composition: 'tracker', run: upload },
  { name: 'use the admin scope alice negotiated (negotiable scope on)', composition: 'grants', run: permissionSession },
];

/** `[name, case]` rows: `%s` prints a name in full (`$name` would quote and shorten it). */
const ROWS = CASES.map((isolation) => [isolation.name, isolation] as const);
const STACK_ROWS = STACKS.map((stack) => [stack.name, stack] as const);

describe.each(STACK_ROWS)('isolation of alice and bob on %s, memory store', (_name, stack) => {
  it.each(ROWS)('bob cannot %s', (_case, { composition, run }) => withWorld(stack, composition, undefined, run));
});

const REDIS_TITLE =
  REDIS_URL === undefined
    ? 'isolation across two instances sharing Redis: skipped because REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6390)'
    : 'isolation across two instances sharing Redis';

describe.skipIf(REDIS_URL === undefined)(REDIS_TITLE, () => {
  const redis = new RedisRun(REDIS_URL ?? '');

  afterAll(async () => {
    await redis.cleanup();
  });

  describe.each(STACK_ROWS)('%s: alice on instance A, bob on instance B', (_name, stack) => {
    it.each(ROWS)('bob cannot %s', (_case, { composition, run }) => withWorld(stack, composition, redis, run));
  });
});
