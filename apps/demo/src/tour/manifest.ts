/** Step 13 of the tour: the manifest, and the same document as the server card over HTTP. */
import { createManifestReader, manifestClient } from '@ext/manifest/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

const MANIFEST_METHOD = 'io.github.mcp-ext/manifest/get';

/** What the server offers, in one request: the manifest, and the same document as a static server card over HTTP. */
export async function manifestStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [manifestClient()], name: 'planning-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the planning client has no extensions attached');
    const reader = createManifestReader(client);
    const manifest = await reader.get();
    expect(manifest !== undefined, 'the server did not answer its manifest');
    const tools = manifest.tools.map((tool) => tool.name);
    const confirming = await reader.toolsRequiringConfirmation();
    const costly = await reader.costlyTools();
    row('client -> server', `${MANIFEST_METHOD} {}`);
    row('server -> client', `${String(tools.length)} tools: ${tools.join(', ')}`);
    row('', `needs a person's approval: ${compact(confirming)}; metered or costly: ${compact(costly)}`);
    row('', `extensions: ${Object.keys(manifest.extensions ?? {}).length} listed`);
    expect(
      confirming.includes('delete_ticket') && costly.includes('export_report'),
      'the manifest does not flag delete_ticket and export_report',
    );
    if (tour.cardUrl !== undefined) {
      const response = await fetch(tour.cardUrl);
      const card = (await response.json()) as Record<string, unknown>;
      row(
        'GET',
        `${tour.cardUrl.pathname} -> ${String(response.status)}, ETag ${String(response.headers.get('etag'))}, name ${compact(card.name)}`,
      );
      expect(
        response.ok && dig(card, '_meta', MANIFEST_METHOD.slice(0, -'/get'.length)) !== undefined,
        'the server card does not carry the manifest',
      );
    }
    print();
    ok(
      'an agent can plan before it calls: which tools need approval, which cost something, all from what the server registered.',
    );
  } finally {
    await connection.close();
  }
}
