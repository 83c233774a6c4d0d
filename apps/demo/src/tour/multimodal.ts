/** Step 16 of the tour: multimodal, an image uploaded out of band and an unsupported type refused. */
import { dataReferencesClient } from '@ext/data-references/client';
import { getStructuredError } from '@ext/errors/client';
import { binaryInput, multimodalClient } from '@ext/multimodal/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** A 1x1 PNG: a real image, small enough to print. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** An image sent as raw bytes out of band, and an unsupported type refused before the tool runs. */
export async function multimodalStep(tour: TourTarget): Promise<void> {
  // The tour's image is tiny: out of band from the first byte (the default starts at 64 KiB), to show the path.
  const connection = await open(tour, {
    extensions: [dataReferencesClient(), multimodalClient({ mimeTypes: ['image/*'], minOutOfBandBytes: 0 })],
    name: 'attaching-client',
  });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the attaching client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Screenshot of the bug' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const image = await binaryInput(client, PIXEL_PNG, { mimeType: 'image/png' });
    const outOfBand = dig(image, 'ref_id') !== undefined;
    row(
      'client -> server',
      outOfBand
        ? `PUT ${String(PIXEL_PNG.length)} raw bytes to the upload URL, then tools/call attach_image with the data reference`
        : 'tools/call attach_image with base64 image content',
    );
    const attached = await client.callTool('attach_image', { id, image });
    row('server -> client', compact(attached.structuredContent));
    expect(
      attached.isError !== true && dig(attached.structuredContent, 'attachment', 'bytes') === PIXEL_PNG.length,
      `attach_image failed: ${compact(attached.content)}`,
    );
    const wrong = await client.callTool('attach_image', {
      id,
      image: { type: 'image', data: PIXEL_PNG.toString('base64'), mimeType: 'image/tiff' },
    });
    const refusal = getStructuredError(wrong);
    row('client -> server', 'tools/call attach_image with an image/tiff');
    row('server -> client', `${String(refusal?.code)} (${String(refusal?.category)}): ${String(refusal?.message)}`);
    expect(
      wrong.isError === true && refusal?.category === 'invalid_input',
      'an unsupported image type was not refused',
    );
    print();
    ok(
      `${outOfBand ? 'the bytes went out of band, no base64 in JSON' : 'the image went inline'}; the tool's declared types and size limit were checked before it ran.`,
    );
  } finally {
    await connection.close();
  }
}
