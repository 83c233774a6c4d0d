/** Step 15 of the tour: data references, an export imported by the sheets server straight from the tracker. */
import { DATA_REFERENCES_ID, type DataReference } from '@ext/data-references';
import { dataReferencesClient, importReference, referencesIn } from '@ext/data-references/client';
import { connect } from '../client/connect.js';
import { compact, dig, pretty } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** The export as a signed URL, imported by the sheets server directly: the bytes never pass through the client. */
export async function dataReferencesStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [dataReferencesClient()], name: 'moving-client' });
  const sheets = await connect(
    { kind: 'http', url: tour.sheets },
    { era: 'modern', extensions: [dataReferencesClient()], name: 'sheets-client' },
  );
  try {
    const tracker = connection.extended;
    const target = sheets.extended;
    expect(tracker !== undefined && target !== undefined, 'the clients have no extensions attached');
    const exported = await tracker.callTool('export_report', {});
    const [reference] = referencesIn(exported);
    expect(reference !== undefined, 'export_report returned no data reference');
    const link = exported.content.find((block) => block.type === 'resource_link');
    row('client -> tracker', 'tools/call export_report {}');
    row('tracker -> client', `_meta["${DATA_REFERENCES_ID}"].references[0]\n${pretty(shownReference(reference), 0)}`);
    row('', `plus a resource_link for clients without the extension: ${compact(dig(link, 'uri'))}`);
    const answer = await importReference(target, reference);
    row('client -> sheets', `${DATA_REFERENCES_ID}/import { ref_id, origin_server, access_url, checksum, ... }`);
    row('sheets -> client', compact(answer));
    expect(answer?.status === 'imported', `sheets did not import the export: ${compact(answer)}`);
    const summary = await target.callTool('sheet_summary', { resource_id: answer.imported_resource_id });
    row('client -> sheets', `tools/call sheet_summary ${compact({ resource_id: answer.imported_resource_id })}`);
    row('sheets -> client', compact(summary.structuredContent));
    expect(
      Number(dig(summary.structuredContent, 'rows')) === Number(dig(exported.structuredContent, 'report', 'rows')),
      'sheets counted other rows than the tracker exported',
    );
    print();
    ok(
      `sheets fetched ${String(reference.size_bytes)} bytes from the tracker's signed URL and checked their sha256; the client only passed the reference along.`,
    );
  } finally {
    await sheets.close();
    await connection.close();
  }
}

function shownReference(reference: DataReference): Record<string, unknown> {
  const { access_url: url, ...rest } = reference;
  return {
    ...rest,
    access_url: typeof url === 'string' ? `${url.slice(0, url.indexOf('?') + 1)}...(signed, expires)` : url,
  };
}
