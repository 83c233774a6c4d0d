/** Step 18 of the tour: two callers, alice and bob, whose tokens, state and quota stay their own. */
import type { ToolResult } from '@ext/core';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { confirmationClient, getConfirmationRequired } from '@ext/confirmation/client';
import { costClient, getCostInfo } from '@ext/cost/client';
import { getStructuredError } from '@ext/errors/client';
import { SESSION_STATE_ID } from '@ext/session-state';
import { getSessionStateMeta, sessionStateClient } from '@ext/session-state/client';
import { streamCall, streamingClient } from '@ext/streaming/client';
import { connect, type Connection, type Target } from '../client/connect.js';
import { compact, dig, shorten } from './explain.js';
import { EXPORT_QUOTA } from '../tools/tool-limits.js';
import { demoPrincipal, type DemoUser } from '../server/users.js';
import { expect, ok, print, row } from './output.js';
import type { TourTarget } from './target.js';

/** The error code of a refused call, or `undefined` when it was not refused. */
function refusal(result: ToolResult): string | undefined {
  return result.isError === true ? getStructuredError(result)?.code : undefined;
}

/** Bob tries alice's confirmation token and session state, and exports on his own quota. */
export async function twoUsers(tour: TourTarget, as: (user: DemoUser) => Target): Promise<void> {
  const extensions = [confirmationClient(), sessionStateClient(), streamingClient(), costClient()];
  const alice = await connect(as('alice'), { era: tour.era, extensions, name: 'alice-client' });
  const bob = await connect(as('bob'), { era: tour.era, extensions, name: 'bob-client' });
  try {
    const [a, b] = [alice.extended, bob.extended];
    expect(a !== undefined && b !== undefined, 'the two clients have no extensions attached');
    row('callers', `alice is ${demoPrincipal('alice')}, bob is ${demoPrincipal('bob')} (from their bearer tokens)`);

    const created = await a.callTool('create_ticket', { title: "Alice's draft" });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const held = getConfirmationRequired(await a.callTool('delete_ticket', { id }));
    expect(held !== undefined, 'delete_ticket was not held for confirmation');
    row('alice', `delete_ticket ${id}: held; her confirmation_token ${shorten(held.confirmation_token)}`);
    const stolen = await b.callTool(
      'delete_ticket',
      { id },
      { meta: { [CONFIRMATION_ID]: { confirmation_token: held.confirmation_token } } },
    );
    row('bob', `the same call with alice's token: ${String(refusal(stolen))}`);
    expect(
      refusal(stolen) === 'CONFIRMATION_PRINCIPAL_MISMATCH',
      `bob's use of alice's token was not refused: ${compact(stolen)}`,
    );
    const still = await a.callTool('get_ticket', { id });
    expect(still.isError !== true, 'the ticket is gone although nobody approved its deletion');

    const view = getSessionStateMeta(await a.callTool('set_view', { status: 'closed' }));
    const sealed = dig(view, 'session_state');
    expect(typeof sealed === 'string', 'set_view issued no session state');
    const replayed = await b.callTool('list_tickets', {}, { meta: { [SESSION_STATE_ID]: { session_state: sealed } } });
    row(
      'bob',
      `list_tickets with alice's session state: ${String(refusal(replayed))} (${String(dig(getStructuredError(replayed)?.details, 'reason'))})`,
    );
    expect(refusal(replayed) === 'SESSION_STATE_INVALID', `bob read alice's session state: ${compact(replayed)}`);

    const remaining = async (client: NonNullable<Connection['extended']>): Promise<number | undefined> => {
      let result: ToolResult | undefined;
      for await (const update of streamCall(client, 'export_report', {}, { timeoutMs: 120_000 }))
        if (update.type === 'result') result = update.result;
      return result === undefined ? undefined : getCostInfo(result)?.quota?.remaining;
    };
    const left = { alice: await remaining(a), bob: await remaining(b) };
    row(
      'quota',
      `after one more export each: alice has ${String(left.alice)} left, bob ${String(left.bob)} of ${String(EXPORT_QUOTA)}`,
    );
    expect(
      left.bob === EXPORT_QUOTA - 1 && left.alice !== undefined && left.alice < left.bob,
      "bob shares alice's export quota",
    );
    print();
    ok('each caller keeps its own tokens, state and quota: what alice holds is useless to bob.');
  } finally {
    await alice.close();
    await bob.close();
  }
}
