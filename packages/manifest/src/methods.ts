/** `<id>/get`: the manifest, or "not modified" for a current etag, with `ttl_seconds`. */
import { ExtensionError, type MethodHandler } from '@ext/core';
import { invalidInputError } from '@ext/core/kit';
import type { Assemble } from './assemble.js';
import { getAnswer } from './logic.js';
import { parseGetParams } from './parse.js';
import { MANIFEST_ID } from './schema.js';
import type { Watcher } from './watch.js';

/** The handler of `<id>/get`; a connection that asks is watched for changes. */
export function getMethod(assemble: Assemble, watch: Watcher, ttlSeconds: number): MethodHandler {
  return (params, ctx) => {
    const parsed = parseGetParams(params);
    if (!parsed.ok) {
      throw invalidInputError(
        {
          message: `${MANIFEST_ID}/get: params${parsed.pointer} ${parsed.message}`,
          field: parsed.pointer.slice(1) || 'params',
          pointer: parsed.pointer,
        },
        'Send no params, or { "etag": <the etag of the manifest you hold> }.',
      );
    }
    const server = ctx.server;
    if (server === undefined) {
      throw new ExtensionError(
        'permanent',
        'MANIFEST_UNAVAILABLE',
        'This server cannot describe itself: its adapter does not expose the server to extensions.',
        {
          userActionable: false,
        },
      );
    }
    const current = assemble(server, ctx.protocolVersion, ctx.identity?.source === 'anonymous', ctx.logger);
    watch(ctx, server, current.etag);
    return getAnswer(current.manifest, current.etag, ttlSeconds, parsed.value.etag);
  };
}
