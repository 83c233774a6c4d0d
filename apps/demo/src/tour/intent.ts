/** Step 8 of the tour: intent, where the server points a client to a better tool. */
import { INTENT_ID } from '@ext/intent';
import { callWithIntent, intentClient } from '@ext/intent/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** The client says why it calls; the server points it to a better tool. */
export async function intent(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [intentClient()], name: 'intent-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the intent client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Triage the inbox' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const why = 'show me all open tickets';
    const outcome = await callWithIntent(client, 'get_ticket', { id }, why, { policy: 'log' });
    row(
      'client -> server',
      `tools/call get_ticket ${compact({ id })} with _meta["${INTENT_ID}"] ${compact({ intent: why })}`,
    );
    row('server -> client', `the ticket, and _meta["${INTENT_ID}"] ${compact(outcome.suggestion)}`);
    expect(outcome.result.isError !== true, 'the advisory call did not run');
    expect(
      outcome.suggestion?.suggestion.recommended_tool === 'list_tickets',
      'the server did not suggest list_tickets',
    );
    print();
    ok(
      "advisory mode: the call still ran, and the agent learned that list_tickets answers what it wants; following it is the host's policy.",
    );
  } finally {
    await connection.close();
  }
}
