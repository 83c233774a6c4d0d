/** The zod schema of one binary tool argument, in every form the extension accepts. */
import * as z from 'zod';

const REFERENCE_FIELDS = {
  ref_id: z.string().min(1),
  origin_server: z.string().min(1),
  mime_type: z.string().min(1),
  size_bytes: z.number().int().min(0).optional(),
  expires_at: z.string().optional(),
  access_url: z.string().optional(),
  checksum: z.object({ algorithm: z.enum(['sha256', 'md5']), value: z.string() }).optional(),
};

/**
 * A zod schema for one binary argument in any form the extension accepts:
 * MCP image or audio content (`{ type, data, mimeType }`), an embedded blob
 * resource, or a data reference (out of band).
 */
export function binaryInputSchema(
  description = 'Binary input: image or audio content, an embedded blob, or a data reference',
) {
  return z
    .union([
      z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
      z.object({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
      z.object({
        type: z.literal('resource'),
        resource: z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
      }),
      z.object(REFERENCE_FIELDS),
    ])
    .describe(description);
}
