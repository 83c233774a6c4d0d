import { parseSettings } from '@ext/core';
import { STREAMING_ID, StreamingServerSettingsSchema, type StreamingServerSettings } from './schema.js';

/**
 * The server's streaming settings from its `capabilities.extensions`
 * (e.g. `client.serverExtensions()`), or `undefined` when it does not
 * advertise a version this package speaks. Never throws.
 */
export function getStreamingSettings(extensions: unknown): StreamingServerSettings | undefined {
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return undefined;
  const raw = (extensions as Record<string, unknown>)[STREAMING_ID];
  if (raw === undefined) return undefined;
  const parsed = parseSettings<StreamingServerSettings>(raw, { schema: StreamingServerSettingsSchema, majors: [1] });
  return parsed.ok ? parsed.settings : undefined;
}
