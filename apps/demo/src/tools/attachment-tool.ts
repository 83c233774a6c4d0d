/** The `attach_image` tool: an image, inline or uploaded out of band, recorded on a ticket by size and digest. */
import { createHash } from 'node:crypto';
import type { CallContext, ExtendedServer, ToolResult } from '@ext/core';
import { MULTIMODAL_ID } from '@ext/multimodal';
import { binaryInputSchema, inputsOf, openInput } from '@ext/multimodal/server';
import { z } from 'zod';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES } from './tool-limits.js';
import type { ToolDeps } from './tool-support.js';

// Built once for every server instance (a zod object per instance cost each legacy-era session memory).
const attachInput = z.object({
  id: z.string().describe('Ticket id, e.g. "T-1".'),
  image: binaryInputSchema('The image: image content, or a data reference to an upload.'),
});

/** Registers `attach_image`. */
export function registerAttachmentTool(extended: ExtendedServer, { tracker }: ToolDeps): void {
  extended.registerTool(
    'attach_image',
    {
      title: 'Attach image',
      description:
        `Attaches an image (PNG, JPEG, GIF or WebP, at most ${String(MAX_ATTACHMENT_BYTES / (1024 * 1024))} MiB) to a ticket. ` +
        'Send it as image content, or upload it out of band and pass the data reference.',
      inputSchema: attachInput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      _meta: { [MULTIMODAL_ID]: { input_types: ATTACHMENT_TYPES, max_input_size_bytes: MAX_ATTACHMENT_BYTES } },
    },
    async ({ id, image }, ctx) => attachImage(ctx, id, image, tracker),
  );
}

async function attachImage(
  ctx: CallContext,
  id: string,
  image: Parameters<typeof openInput>[1],
  tracker: ToolDeps['tracker'],
): Promise<ToolResult> {
  // The multimodal stage already refused wrong types and sizes; this reads the bytes however they came.
  const [input] = inputsOf(ctx);
  const digest = createHash('sha256');
  let size = 0;
  for await (const chunk of await openInput(ctx, image)) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    digest.update(bytes);
  }
  const attachment = {
    media_type: input?.mimeType ?? 'application/octet-stream',
    bytes: size,
    sha256: digest.digest('hex'),
    via: input?.kind ?? 'content',
  };
  const ticket = await tracker.attach(id, attachment);
  return {
    content: [
      {
        type: 'text',
        text: `Attached a ${String(size)}-byte ${attachment.media_type} image to ${ticket.id} (${attachment.via}).`,
      },
    ],
    structuredContent: { ticket: ticket.id, attachment },
  };
}
