/** Step 17 of the tour: discovery recommends the server that does what the tracker does not. */
import { describeRecommendation, discoveryClient, recommendServers } from '@ext/discovery/client';
import { compact } from './explain.js';
import { SHEETS_PEER } from '../server/discovery.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

const DISCOVERY_METHOD = 'io.github.mcp-ext/discovery/recommend';

/** Which server to use for something this one does not do. */
export async function discoveryStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [discoveryClient()], name: 'discovering-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the discovering client has no extensions attached');
    const answer = await recommendServers(client, 'spreadsheet', { maxResults: 3 });
    row('client -> server', `${DISCOVERY_METHOD} ${compact({ capability_needed: 'spreadsheet', max_results: 3 })}`);
    for (const recommendation of answer?.recommendations ?? [])
      row('server -> client', describeRecommendation(recommendation));
    expect(
      answer?.recommendations[0]?.server_name === SHEETS_PEER.name,
      `sheets was not recommended first: ${compact(answer?.recommendations.map((entry) => entry.server_name))}`,
    );
    expect(
      !answer.recommendations.some((entry) => entry.server_name === 'com.example.legacy/sheets'),
      'a deprecated registry entry was recommended',
    );
    print();
    ok(
      'the query never left the server; the deprecated spreadsheet entry of the registry index was left out, and each match says why it ranked.',
    );
  } finally {
    await connection.close();
  }
}
