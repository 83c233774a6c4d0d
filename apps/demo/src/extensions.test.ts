/**
 * The composed extensions on the tracker, through real clients over
 * Streamable HTTP on both eras: the create/link/post saga rolls back when the
 * post fails, the admin tool needs a scope nobody holds, session state
 * remembers a view, reads carry provenance, and intent suggests a better tool.
 */
import { silentLogger } from '@ext/core';
import { getStructuredError } from '@ext/errors/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { callWithIntent, intentClient } from '@ext/intent/client';
import { getProvenance, provenanceClient } from '@ext/provenance/client';
import { sessionStateClient } from '@ext/session-state/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection, type Era } from './connect.js';
import { startHttpServer, type RunningHttpServer } from './node-http.js';

describe.each(['modern', 'legacy'] as const satisfies readonly Era[])('the tracker\'s composed extensions on the %s era', (era) => {
  let running: RunningHttpServer;
  let connection: Connection;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0, logger: silentLogger });
    connection = await connect(
      { kind: 'http', url: running.url },
      { era, extensions: [idempotencyClient(), transactionsClient(), sessionStateClient(), provenanceClient(), intentClient()] },
    );
  });

  afterAll(async () => {
    await connection.close();
    await running.close();
  });

  it('rolls the create/link/post saga back when posting to an archived channel fails', async () => {
    const client = connection.extended!;
    const outcome = await runSaga([
      { client, server: 'tracker', tool: 'create_ticket', arguments: { title: 'Launch v2' } },
      {
        client,
        server: 'tracker',
        tool: 'link_document',
        arguments: (previous) => ({ id: (previous[0]?.structuredContent?.ticket as { id: string }).id, url: 'https://docs.example.com/launch' }),
      },
      { client, server: 'tracker', tool: 'post_message', arguments: { channel: 'archive', text: 'Launched!' } },
    ]);
    if (outcome.status === 'committed') throw new Error('the saga committed although posting failed');
    expect(outcome.failure).toMatchObject({ tool: 'post_message' });
    const [participant] = outcome.participants;
    expect(participant?.status).toBe('rolled_back');
    expect(participant?.steps_compensated?.map((step) => `${step.tool}:${step.status}`)).toEqual(['link_document:compensated', 'create_ticket:compensated']);
    const gone = await client.callTool('get_ticket', { id: 'T-1' });
    expect(getStructuredError(gone)).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it('refuses the admin tool for want of a scope nobody holds, naming it', async () => {
    const result = await connection.extended!.callTool('purge_closed_tickets');
    expect(getStructuredError(result)).toMatchObject({ category: 'auth_required', code: 'SCOPE_INSUFFICIENT', details: { missing_scopes: ['tickets:admin'] } });
  });

  it('remembers a view in session state, and cites its store on reads', async () => {
    const client = connection.extended!;
    const open = await client.callTool('create_ticket', { title: 'Still open' });
    const id = (open.structuredContent?.ticket as { id: string }).id;
    const closing = await client.callTool('create_ticket', { title: 'Will close' });
    await client.callTool('close_ticket', { id: (closing.structuredContent?.ticket as { id: string }).id });
    await client.callTool('set_view', { status: 'open' });
    const listed = await client.callTool('list_tickets');
    expect((listed.structuredContent?.tickets as { id: string }[]).map((ticket) => ticket.id)).toEqual([id]);
    const read = await client.callTool('get_ticket', { id });
    expect(getProvenance(read)).toMatchObject({ sources: [{ source: 'tracker:tickets', confidence: 'exact' }], digest: 'verified' });
  });

  it('suggests list_tickets when an agent reads one ticket to see them all', async () => {
    const created = await connection.extended!.callTool('create_ticket', { title: 'One of many' });
    const id = (created.structuredContent?.ticket as { id: string }).id;
    const outcome = await callWithIntent(connection.extended!, 'get_ticket', { id }, 'show me all open tickets', { policy: 'log' });
    expect(outcome.result.isError).not.toBe(true);
    expect(outcome.suggestion?.suggestion.recommended_tool).toBe('list_tickets');
  });
});
