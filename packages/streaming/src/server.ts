/**
 * The server half of `@ext/streaming`: assembles the extension descriptor
 * from the options, the middleware and the tool metadata check, and hands
 * handlers their stream through `streamOf(ctx)`.
 */
import type { ServerExtension } from '@ext/core';
import { readAuthorToolMeta } from './logic.js';
import { streamingMiddleware } from './middleware.js';
import { resolveOptions, type StreamingServerOptions } from './options.js';
import {
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  StreamingClientSettingsSchema,
  type StreamingServerSettings,
} from './schema.js';

export type { StreamingServerOptions } from './options.js';
export type { ChunkOptions, ChunkReceipt, OperationStream, ProgressOptions } from './operation-stream.js';
export { streamOf } from './locals.js';
export { getStreamingSettings } from './settings.js';

/**
 * The server half of `@ext/streaming`. For a call whose client follows an
 * operation (`params._meta["io.github.mcp-ext/streaming"] = { operation_id }`),
 * the handler's `streamOf(ctx)` sends progress, partial results and ordered
 * chunks as notifications, and, for tools declared with
 * `_meta: { "io.github.mcp-ext/streaming": { checkpoints: true } }`,
 * persists checkpoints in the store so a later call carrying
 * `{ operation_id, checkpoint_token }` continues from there.
 */
export function streamingServer(options: StreamingServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const settings: StreamingServerSettings = {
    version: STREAMING_WIRE_VERSION,
    checkpoint_ttl_seconds: config.checkpointTtlSeconds,
  };
  return {
    side: 'server',
    keepsCallerState: true,
    name: STREAMING_PACKAGE,
    ids: [STREAMING_ID],
    settings,
    peerSettings: StreamingClientSettingsSchema,
    stage: 'streaming',
    middleware: streamingMiddleware(config),
    toolMeta(tool) {
      // Validates the author's entry at registration, so a typo fails at startup.
      const declared = readAuthorToolMeta(tool, STREAMING_ID);
      return declared === undefined ? undefined : { checkpoints: declared.checkpoints };
    },
  };
}
