/**
 * The `memory` ready policy in front of the unmodified server-memory, with no
 * policy of the operator's: deletions wait for a person, and a saga rolled
 * back deletes only what its own steps created (the compensation reads the
 * step's result, which lists only new entities), so an entity that existed
 * before is kept. What happened is read from the server's file on disk.
 */
import { join } from 'node:path';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { errorsClient } from '@ext/errors/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { beginTransaction, transactionsClient } from '@ext/transactions/client';
import { describe, expect, it } from 'vitest';
import {
  closeAfterEach,
  connectClient,
  entitiesOnDisk,
  errorOf,
  gatewayConfig,
  memoryUpstream,
  serveGateway,
  tempDir,
} from './support.js';

closeAfterEach();

const entity = (name: string) => ({ name, entityType: 'person', observations: [] });

describe('policies: [memory] in front of server-memory', () => {
  it('asks before a deletion, and a rolled-back saga deletes only the entities it created', async () => {
    const file = join(await tempDir('ready-memory'), 'memory.jsonl');
    const config = gatewayConfig({
      upstreams: { memory: memoryUpstream(file) },
      policies: ['memory'],
      identity: { anonymous: true },
      store: 'memory',
    });
    const served = await serveGateway(config);
    const { client } = await connectClient(served.url, {
      era: 'modern',
      extensions: [errorsClient(), confirmationClient(), idempotencyClient(), transactionsClient()],
    });
    await client.callTool('create_entities', { entities: [entity('ada')] });

    const declined = await callWithConfirmation(
      client,
      'delete_entities',
      { entityNames: ['ada'] },
      { confirm: () => Promise.resolve(false) },
    );
    expect(errorOf(declined).code).toBe('CONFIRMATION_DECLINED');
    expect(await entitiesOnDisk(file)).toEqual(['ada']);

    const tx = await beginTransaction(client, { description: 'onboard two people' });
    // `ada` exists already: the server skips her, and its result lists `bob` alone.
    const created = await tx.callTool('create_entities', { entities: [entity('ada'), entity('bob')] });
    expect(created.structuredContent).toEqual({ entities: [entity('bob')] });
    expect(await entitiesOnDisk(file)).toEqual(['ada', 'bob']);

    const outcome = await tx.rollback('the onboarding was called off');
    expect(outcome.status).toBe('rolled_back');
    expect(await entitiesOnDisk(file)).toEqual(['ada']);
  });
});
