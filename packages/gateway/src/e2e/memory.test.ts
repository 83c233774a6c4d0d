/**
 * The unmodified `@modelcontextprotocol/server-memory` (over stdio) behind a
 * gateway served over Streamable HTTP: its destructive `delete_entities` is
 * gated for every kind of client, a saga's compensation undoes its
 * `create_entities` upstream, and an idempotency key makes a repeated
 * `create_entities` run once. What happened upstream is read from the
 * server's own file, not through the gateway.
 */
import { join } from 'node:path';
import { CONFIRMATION_ID } from '@ext/confirmation';
import {
  callWithConfirmation,
  confirmationClient,
  getConfirmationRequired,
  type ConfirmationRequest,
} from '@ext/confirmation/client';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { beginTransaction, transactionsClient } from '@ext/transactions/client';
import { describe, expect, it } from 'vitest';
import {
  closeAfterEach,
  connectClient,
  entitiesOnDisk,
  ERAS,
  errorOf,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  tempDir,
  textOf,
  type ServedGateway,
} from './support.js';

closeAfterEach();

interface MemoryGateway extends ServedGateway {
  /** server-memory's graph file: what really happened upstream. */
  readonly file: string;
}

/** server-memory behind a gateway whose config makes `create_entities` a saga step undone by `delete_entities`. */
async function memoryGateway(): Promise<MemoryGateway> {
  const file = join(await tempDir('memory'), 'memory.jsonl');
  const config = gatewayConfig({
    upstreams: { memory: memoryUpstream(file) },
    policy: {
      create_entities: {
        compensate: { tool: 'delete_entities', arguments: { entityNames: '$args.entities[*].name' } },
      },
    },
    identity: { anonymous: true },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), file };
}

function entity(name: string) {
  return { name, entityType: 'person', observations: [`${name} was here`] };
}

const EXTENSIONS = () => [errorsClient(), confirmationClient(), idempotencyClient(), transactionsClient()];

describe('delete_entities behind the gateway needs a person’s approval', () => {
  it.each(ERAS)('with our confirmation client half (%s): runs only after approval, exactly once', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era, extensions: EXTENSIONS() });
    await client.callTool('create_entities', { entities: [entity('ada'), entity('bob')] });
    expect(await entitiesOnDisk(served.file)).toEqual(['ada', 'bob']);

    const asked: ConfirmationRequest[] = [];
    const confirm = (request: ConfirmationRequest) => {
      asked.push(request);
      return Promise.resolve(true);
    };
    const done = await callWithConfirmation(client, 'delete_entities', { entityNames: ['ada'] }, { confirm });
    expect(done.isError).toBeFalsy();
    expect(textOf(done)).toBe('Entities deleted successfully');
    expect(asked).toEqual([
      expect.objectContaining({ kind: 'call', via: 'token', tool: 'delete_entities', riskLevel: 'destructive' }),
    ]);
    expect(await entitiesOnDisk(served.file)).toEqual(['bob']);
  });

  it.each(ERAS)('the token flow by hand (%s): held, run with its token once, its replay refused', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era, extensions: EXTENSIONS() });
    await client.callTool('create_entities', { entities: [entity('ada')] });

    const held = await client.callTool('delete_entities', { entityNames: ['ada'] });
    const required = getConfirmationRequired(held);
    expect(required).toMatchObject({ tool: 'delete_entities', risk_level: 'destructive' });
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);

    const withToken = { meta: { [CONFIRMATION_ID]: { confirmation_token: required?.confirmation_token } } };
    const ran = await client.callTool('delete_entities', { entityNames: ['ada'] }, withToken);
    expect(ran.isError).toBeFalsy();
    expect(await entitiesOnDisk(served.file)).toEqual([]);

    // Made again upstream: a second run of the approved call would delete it.
    await client.callTool('create_entities', { entities: [entity('ada')] });
    const replayed = await client.callTool('delete_entities', { entityNames: ['ada'] }, withToken);
    expect(errorOf(replayed).code).toBe('CONFIRMATION_TOKEN_REPLAYED');
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it('a declined confirmation runs nothing upstream', async () => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era: 'modern', extensions: EXTENSIONS() });
    await client.callTool('create_entities', { entities: [entity('ada')] });
    const declined = await callWithConfirmation(
      client,
      'delete_entities',
      { entityNames: ['ada'] },
      { confirm: () => Promise.resolve(false) },
    );
    expect(errorOf(declined).code).toBe('CONFIRMATION_DECLINED');
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it.each(ERAS)('a client that can elicit (%s) is asked in-band, and the call runs on its yes', async (era) => {
    const served = await memoryGateway();
    const asked: ConfirmationRequest[] = [];
    let answer = false;
    const { client } = await connectClient(served.url, {
      era,
      elicit: (request) => {
        asked.push(request);
        return Promise.resolve(answer);
      },
    });
    await client.callTool('create_entities', { entities: [entity('ada')] });

    const declined = await client.callTool('delete_entities', { entityNames: ['ada'] });
    expect(declined.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: 'call', tool: 'delete_entities', riskLevel: 'destructive' });
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);

    answer = true;
    const done = await client.callTool('delete_entities', { entityNames: ['ada'] });
    expect(done.isError).toBeFalsy();
    expect(asked).toHaveLength(2);
    expect(await entitiesOnDisk(served.file)).toEqual([]);
  });

  it.each(ERAS)('a plain SDK client (%s) is refused fail-closed and the entity stays', async (era) => {
    const served = await memoryGateway();
    const sdk = await plainClient(served.url, era);
    await sdk.callTool({ name: 'create_entities', arguments: { entities: [entity('ada')] } });

    const refused = await sdk.callTool({ name: 'delete_entities', arguments: { entityNames: ['ada'] } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('the call was not executed');
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });

  it.each(ERAS)('a client that only speaks structured errors (%s) gets CONFIRMATION_REQUIRED', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era, extensions: [errorsClient()] });
    await client.callTool('create_entities', { entities: [entity('ada')] });

    const refused = await client.callTool('delete_entities', { entityNames: ['ada'] });
    expect(errorOf(refused)).toMatchObject({ code: 'CONFIRMATION_REQUIRED', category: 'permanent' });
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });
});

describe('a saga over server-memory', () => {
  it.each(ERAS)('rolling back (%s) runs the configured compensation: the entities are gone upstream', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era, extensions: EXTENSIONS() });
    await client.callTool('create_entities', { entities: [entity('keep')] });

    const tx = await beginTransaction(client, { description: 'onboard two people' });
    const created = await tx.callTool('create_entities', { entities: [entity('ada'), entity('bob')] });
    expect(created.isError).toBeFalsy();
    expect(await entitiesOnDisk(served.file)).toEqual(['keep', 'ada', 'bob']);

    // A step the upstream refuses: its arguments do not match the tool's schema.
    const failed = await tx.callTool('create_entities', { entities: 'not a list' });
    expect(failed.isError).toBe(true);

    const outcome = await tx.rollback('the second step failed');
    expect(outcome.status).toBe('rolled_back');
    expect(outcome.steps_compensated).toEqual([
      expect.objectContaining({ tool: 'create_entities', status: 'compensated' }),
    ]);
    expect(await entitiesOnDisk(served.file)).toEqual(['keep']);
    const graph = await client.callTool('read_graph', {});
    expect((graph.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toEqual(['keep']);
  });
});

describe('idempotency keys on create_entities', () => {
  it.each(ERAS)('the same key twice (%s) runs once upstream and replays the first result', async (era) => {
    const served = await memoryGateway();
    const { client } = await connectClient(served.url, { era, extensions: EXTENSIONS() });
    const args = { entities: [entity('ada')] };
    const meta = idempotencyMeta('create-ada-0001');

    const first = await client.callTool('create_entities', args, { meta });
    expect(first.structuredContent).toEqual({ entities: [entity('ada')] });
    // Between the two calls the entity is removed upstream: a second execution would create it again.
    await callWithConfirmation(
      client,
      'delete_entities',
      { entityNames: ['ada'] },
      { confirm: () => Promise.resolve(true) },
    );
    expect(await entitiesOnDisk(served.file)).toEqual([]);

    const second = await client.callTool('create_entities', args, { meta });
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(getReplayInfo(second)).toMatchObject({ idempotency_key: 'create-ada-0001', was_replay: true });
    expect(getReplayInfo(first)?.was_replay).toBe(false);
    expect(await entitiesOnDisk(served.file)).toEqual([]);

    // A new key is a new call.
    const third = await client.callTool('create_entities', args, { meta: idempotencyMeta('create-ada-0002') });
    expect(getStructuredError(third)).toBeUndefined();
    expect(await entitiesOnDisk(served.file)).toEqual(['ada']);
  });
});
