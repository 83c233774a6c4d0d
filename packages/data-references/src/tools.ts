/** The `import_from_ref` tool: `<id>/import` served as a tool too, for clients that can only call tools. */
import { registerMethodTools } from '@ext/core/kit';
import { type ExtendedServer, type ToolInfo } from '@ext/core';
import * as z from 'zod';
import { DATA_REFERENCES_PACKAGE } from './schema.js';

/** The tool names of {@link registerDataReferenceTools}. */
export const DATA_REFERENCE_TOOL_NAMES = ['import_from_ref'] as const;

/**
 * Serves `<id>/import` as the tool `import_from_ref` too, for clients that
 * can only call tools: the model passes the DataReference it got from
 * another server, and this server fetches the bytes itself. It runs the
 * method's own handler, so the answer (an `ImportFromRefResponse`, in
 * `structuredContent`) is the same. Needs `dataReferencesServer({ import })`.
 */
export function registerDataReferenceTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  return registerMethodTools(server, DATA_REFERENCES_PACKAGE, [
    {
      verb: 'import',
      name: 'import_from_ref',
      description:
        'Imports data another server produced, given its data reference (ref_id, origin_server, access_url, checksum, ...): this server downloads and verifies the bytes itself, so they never pass through the conversation.',
      inputSchema: z.object({
        ref_id: z.string().min(1).describe('The reference id.'),
        origin_server: z.string().min(1).describe('The server that produced the reference.'),
        access_url: z.string().min(1).describe('The signed URL from the reference.'),
        mime_type: z.string().optional(),
        size_bytes: z.number().int().min(0).optional(),
        expires_at: z.string().optional(),
        checksum: z
          .object({ algorithm: z.enum(['sha256', 'md5']), value: z.string() })
          .optional()
          .describe('The checksum from the reference.'),
        target_format: z.string().optional().describe('Desired format for the imported data, e.g. "raw".'),
      }),
      annotations: { readOnlyHint: false, openWorldHint: true },
      summary: (result) => {
        if (result.status === 'imported') {
          const size = typeof result.size_bytes === 'number' ? `${String(result.size_bytes)} bytes` : 'the data';
          return `Imported ${size} as ${typeof result.imported_resource_id === 'string' ? result.imported_resource_id : 'a new resource'}.`;
        }
        const error = result.error as { message?: unknown } | undefined;
        return `Import failed: ${typeof error?.message === 'string' ? error.message : 'unknown error'}`;
      },
    },
  ]);
}
