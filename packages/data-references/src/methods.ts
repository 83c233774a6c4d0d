/** The extension's JSON-RPC methods: `<id>/import` (with an import policy) and `<id>/upload` (with an origin taking uploads). */
import { invalidInputError } from '@ext/core/kit';
import { type MethodHandler } from '@ext/core';
import { runImport } from './call-references.js';
import { parseImportRequest, parseUploadRequest } from './logic.js';
import type { ServerConfig } from './options.js';
import type { ImportFromRefResponse } from './schema.js';

/** The methods this server serves, by verb. */
export function dataReferencesMethods(config: ServerConfig): Record<string, MethodHandler> {
  const { origin, policy } = config;
  const methods: Record<string, MethodHandler> = {};
  if (policy !== undefined) {
    methods.import = async (params, ctx) => {
      const parsed = parseImportRequest(params);
      if (!parsed.ok)
        throw invalidInputError(
          parsed,
          'Send the DataReference you received (ref_id, origin_server, access_url, checksum, ...), plus target_format if needed.',
        );
      const response: ImportFromRefResponse = await runImport(config, parsed.value, ctx, undefined);
      return response;
    };
  }
  if (origin?.uploads !== undefined) {
    methods.upload = async (params, ctx) => {
      const parsed = parseUploadRequest(params);
      if (!parsed.ok) throw invalidInputError(parsed, 'Send { mime_type, size_bytes? }.');
      const ticket = await origin.createUploadTicket({
        mimeType: parsed.value.mime_type,
        sizeBytes: parsed.value.size_bytes,
        principal: ctx.principal,
      });
      return { ...ticket };
    };
  }
  return methods;
}
