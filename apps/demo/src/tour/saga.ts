/** Step 10 of the tour: a saga of three calls whose last one fails, rolled back by the transactions extension. */
import { idempotencyClient } from '@ext/idempotency/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** Create, link, post: the post fails, and the saga undoes the first two steps. */
export async function saga(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [idempotencyClient(), transactionsClient()], name: 'saga-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the saga client has no extensions attached');
    const outcome = await runSaga([
      { client, server: 'tracker', tool: 'create_ticket', arguments: { title: 'Release 2.0' } },
      {
        client,
        server: 'tracker',
        tool: 'link_document',
        arguments: (previous) => ({
          id: String(dig(previous[0]?.structuredContent, 'ticket', 'id')),
          url: 'https://docs.example.com/release-2',
        }),
      },
      {
        client,
        server: 'tracker',
        tool: 'post_message',
        arguments: { channel: 'archive', text: 'Release 2.0 is out' },
      },
    ]);
    expect(outcome.status !== 'committed', 'the saga committed although the post failed');
    const participant = outcome.participants[0];
    row('steps', 'create_ticket ok, link_document ok, post_message to #archive: CHANNEL_ARCHIVED');
    row('rollback', compact(participant?.stepsCompensated));
    expect(participant?.status === 'rolled_back', `the saga ended ${String(participant?.status)}`);
    print();
    ok(
      'the failed post rolled the transaction back: the link and the ticket were undone, newest first, by server-side compensations.',
    );
  } finally {
    await connection.close();
  }
}
