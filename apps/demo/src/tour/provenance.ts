/** Step 11 of the tour: provenance, a read that cites its source with a digest the client checks. */
import { PROVENANCE_ID } from '@ext/provenance';
import { citation, getProvenance, provenanceClient } from '@ext/provenance/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** A read that says where its data came from, with a digest the client checks. */
export async function provenance(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [provenanceClient()], name: 'citing-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the citing client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Cite me' });
    const result = await client.callTool('get_ticket', { id: String(dig(created.structuredContent, 'ticket', 'id')) });
    const found = getProvenance(result);
    expect(found?.digest === 'verified', 'the provenance digest did not verify');
    row('server -> client', `_meta["${PROVENANCE_ID}"] ${compact(dig(result._meta, PROVENANCE_ID))}`);
    row('citation', found.sources.map((source) => citation(source, 'Ticket "Cite me"')).join('; '));
    print();
    ok('the result names its source; the digest matches the structuredContent the client received.');
  } finally {
    await connection.close();
  }
}
