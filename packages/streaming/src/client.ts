/**
 * The client half of `@ext/streaming`: the descriptor that advertises the
 * extension, `streamCall` to follow a call's stream, and the result's entry.
 */
import type { ClientExtension } from '@ext/core';
import { readResultMeta } from './logic.js';
import {
  STREAMING_ID,
  STREAMING_PACKAGE,
  STREAMING_WIRE_VERSION,
  StreamingServerSettingsSchema,
  type StreamingResultMeta,
} from './schema.js';

export type {
  AutoResumeOptions,
  Checkpoint,
  CheckpointInput,
  ChunkUpdate,
  ProgressUpdate,
  ResultUpdate,
  ResumeUpdate,
  StreamCallOptions,
  StreamingCall,
  StreamUpdate,
} from './call-types.js';
export { isInterruption } from './call-options.js';
export { streamCall } from './stream-call.js';

/**
 * The client half: advertises the extension, so servers stream partial
 * results, chunks and checkpoint tokens to calls made with `streamCall`.
 */
export function streamingClient(): ClientExtension {
  return {
    side: 'client',
    name: STREAMING_PACKAGE,
    ids: [STREAMING_ID],
    settings: { version: STREAMING_WIRE_VERSION },
    peerSettings: StreamingServerSettingsSchema,
  };
}

/** How the server handled the call under the extension; `undefined` when it did not. */
export function getStreamingResult(result: unknown): StreamingResultMeta | undefined {
  return readResultMeta(result, STREAMING_ID);
}
