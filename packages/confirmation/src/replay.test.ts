/**
 * CONF-20 with @ext/idempotency composed: a retried call that idempotency
 * answers from the stored result of an approved call runs nothing, so nobody
 * is asked again; anything that would run is still gated.
 */
import {
  MemoryStore,
  type ElicitationRequest,
  type ElicitationResponse,
  type ExtendedServer,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { idempotencyServer } from '@ext/idempotency/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { confirmationClient, confirmationElicitationHandler, getConfirmationRequired } from './client.js';
import { CONFIRMATION_ID } from './index.js';
import { confirmationServer, readConfirmationAudit } from './server.js';
import { ForgetfulStore } from './test-fixtures/gated-tools.js';

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface Setup {
  readonly store: Store;
  readonly ran: string[];
  readonly client: TestPair['client'];
}

/** Errors, confirmation and idempotency on both sides; `archive_repo` is gated (reversible) and takes keys. */
async function setup(
  line: TestLine,
  options: {
    readonly store?: Store;
    readonly onElicit?: (request: ElicitationRequest) => Promise<ElicitationResponse>;
  } = {},
): Promise<Setup> {
  const ran: string[] = [];
  const store = options.store ?? new MemoryStore();
  const register = (server: ExtendedServer): void => {
    server.registerTool(
      'archive_repo',
      {
        description: 'Archives a repository',
        inputSchema: z.object({ repo: z.string() }),
        _meta: { [CONFIRMATION_ID]: { requires_confirmation: true, risk_level: 'reversible' } },
      },
      (args): ToolResult => {
        ran.push(args.repo);
        return { content: [{ type: 'text', text: `archived ${args.repo}` }] };
      },
    );
  };
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), confirmationServer(), idempotencyServer()],
    clientExtensions: [
      errorsClient(),
      idempotencyClient(),
      // Path (a) when the test answers elicitations, path (b) otherwise.
      options.onElicit === undefined && confirmationClient(),
    ],
    setup: register,
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    onElicit: options.onElicit,
  });
  open.push(pair);
  return { store, ran, client: pair.client };
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

const KEY = idempotencyMeta('archive-a-0001');

function withToken(token: string): Record<string, unknown> {
  return { ...KEY, [CONFIRMATION_ID]: { confirmation_token: token } };
}

/** Holds `archive_repo {repo}` under KEY, then runs it on the token: the approved call whose result is stored. */
async function approvedRun(client: TestPair['client'], repo = 'a'): Promise<string> {
  const held = getConfirmationRequired(await client.callTool('archive_repo', { repo }, { meta: KEY }));
  if (held === undefined) throw new Error('expected the first call to be held');
  const first = await client.callTool('archive_repo', { repo }, { meta: withToken(held.confirmation_token) });
  expect(textOf(first)).toBe(`archived ${repo}`);
  return held.confirmation_token;
}

describe.each(TEST_LINES)('a replay is not asked again (CONF-20) on %s', (line) => {
  it('path (b): the same request sent again, with or without its spent token, replays; nothing runs twice', async () => {
    const { client, store, ran } = await setup(line);
    const token = await approvedRun(client);

    // The answer was lost: the client sends the very same request, its token already spent.
    const again = await client.callTool('archive_repo', { repo: 'a' }, { meta: withToken(token) });
    expect(again.isError).toBeFalsy();
    expect(textOf(again)).toBe('archived a');
    expect(getReplayInfo(again)?.was_replay).toBe(true);
    expect(again._meta?.[CONFIRMATION_ID]).toBeUndefined();
    const bare = await client.callTool('archive_repo', { repo: 'a' }, { meta: KEY });
    expect(getReplayInfo(bare)?.was_replay).toBe(true);
    expect(ran).toEqual(['a']);
    const events = (await readConfirmationAudit(store)).map((item) => item.entry.event);
    expect(events).toEqual(['token_issued', 'token_redeemed', 'replayed_unasked', 'replayed_unasked']);
  });

  it('path (b): other arguments under the key are held as usual, and a malformed entry is refused even on a replay', async () => {
    const { client, ran } = await setup(line);
    await approvedRun(client);

    const other = await client.callTool('archive_repo', { repo: 'b' }, { meta: KEY });
    expect(getConfirmationRequired(other)?.tool).toBe('archive_repo');
    const malformed = await client.callTool(
      'archive_repo',
      { repo: 'a' },
      { meta: { ...KEY, [CONFIRMATION_ID]: { confirmation_token: 'not-a-token' } } },
    );
    expect(getStructuredError(malformed)).toMatchObject({ code: 'INVALID_INPUT', category: 'invalid_input' });
    expect(ran).toEqual(['a']);
  });

  it('path (a): the person is asked once; the retried call replays without a second question', async () => {
    const asked: string[] = [];
    const { client, ran } = await setup(line, {
      onElicit: confirmationElicitationHandler((request) => {
        asked.push(request.kind);
        return Promise.resolve(true);
      }),
    });
    const first = await client.callTool('archive_repo', { repo: 'a' }, { meta: KEY });
    expect(textOf(first)).toBe('archived a');
    const again = await client.callTool('archive_repo', { repo: 'a' }, { meta: KEY });
    expect(textOf(again)).toBe('archived a');
    expect(getReplayInfo(again)?.was_replay).toBe(true);
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(['a']);
  });

  it('a record that expires between the forecast and the replay fails closed: refused, not run; the next try is asked', async () => {
    const store = new ForgetfulStore();
    const { client, ran } = await setup(line, { store });
    await approvedRun(client);

    store.forgetNextRecord = true;
    const refused = await client.callTool('archive_repo', { repo: 'a' }, { meta: KEY });
    expect(getStructuredError(refused)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(ran).toEqual(['a']);
    const next = await client.callTool('archive_repo', { repo: 'a' }, { meta: KEY });
    expect(getConfirmationRequired(next)?.tool).toBe('archive_repo');
    expect(ran).toEqual(['a']);
  });
});
