/** Step 9 of the tour: confirmation holds a destructive call until a person approves it. */
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** A destructive call: the server holds it for a person's approval, bound to these arguments. */
export async function confirmation(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [confirmationClient()], name: 'confirming-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the confirming client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Obsolete' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const asked: string[] = [];
    const result = await callWithConfirmation(
      client,
      'delete_ticket',
      { id },
      {
        confirm: (request) => {
          if (request.kind === 'call') {
            asked.push(request.message);
            row('server -> client', `confirmation_required (${request.riskLevel}): "${request.message}"`);
            row('person', 'approves (the tour answers yes for you)');
          }
          return Promise.resolve(true);
        },
      },
    );
    expect(asked.length === 1, 'the server did not ask before deleting');
    expect(dig(result._meta, CONFIRMATION_ID, 'status') === 'confirmed', 'the approved call did not run');
    row('client -> server', 'the same call again, with the single-use confirmation_token');
    row('server -> client', compact(dig(result._meta, CONFIRMATION_ID)));
    print();
    ok('nothing ran until a person said yes; the token works once, for these arguments and this caller only.');
  } finally {
    await connection.close();
  }
}
