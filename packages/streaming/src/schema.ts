/** The wire contract of `@ext/streaming`: identifiers, the TypeBox schema of every payload, and the JSON Schema document. */
import { extensionId } from '@ext/core';
import { notificationMethod } from '@ext/core/kit';
import Type, { type Static } from 'typebox';

/** The extension identifier: `io.github.mcp-ext/streaming`. */
export const STREAMING_ID = extensionId('streaming');

/** npm package name; the core negotiates extensions by it. */
export const STREAMING_PACKAGE = '@ext/streaming';

/** Wire contract version this package speaks. */
export const STREAMING_WIRE_VERSION = '1.0';

/** Where this package's JSON Schemas are identified (one folder per wire version). */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/streaming/1.0';

/** Allowed operation ids: the same alphabet and length as idempotency keys, so they are safe in store keys and logs. */
export const OPERATION_ID_PATTERN_SOURCE = '^[a-zA-Z0-9_\\-:.]{1,128}$';

/** Longest checkpoint token a server accepts; longer input is refused before any lookup. */
export const MAX_CHECKPOINT_TOKEN_LENGTH = 512;

/** How long a checkpoint stays resumable when the server sets nothing else: 24 hours. */
export const DEFAULT_CHECKPOINT_TTL_SECONDS = 86_400;

/** The event names of this extension's notifications: `notifications/<id>/<event>`. */
export const STREAMING_EVENTS = { progress: 'progress', chunk: 'chunk' } as const;

/** The notification method of one event under an identifier (the negotiated one). */
export function streamingMethod(id: string, event: keyof typeof STREAMING_EVENTS): string {
  return notificationMethod(id, STREAMING_EVENTS, event);
}

/** What the server advertises in `capabilities.extensions[STREAMING_ID]`. Unknown fields are ignored. */
export const StreamingServerSettingsSchema = Type.Object(
  {
    version: Type.String(),
    /** How long a checkpoint token stays resumable. */
    checkpoint_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: `${SCHEMA_BASE}/server-settings.json`, title: 'StreamingServerSettings' },
);
export type StreamingServerSettings = Static<typeof StreamingServerSettingsSchema>;

/** What the client advertises: only the wire version. Unknown fields are ignored. */
export const StreamingClientSettingsSchema = Type.Object(
  { version: Type.String() },
  { $id: `${SCHEMA_BASE}/client-settings.json`, title: 'StreamingClientSettings' },
);
export type StreamingClientSettings = Static<typeof StreamingClientSettingsSchema>;

/** `Tool._meta[STREAMING_ID]`: whether calls of the tool can be resumed from checkpoints. */
export const StreamingToolMetaSchema = Type.Object(
  { checkpoints: Type.Boolean() },
  { $id: `${SCHEMA_BASE}/tool-meta.json`, title: 'StreamingToolMeta' },
);
export type StreamingToolMeta = Static<typeof StreamingToolMetaSchema>;

/**
 * `params._meta[STREAMING_ID]` of `tools/call`: the operation the client
 * tracks, and, to resume it, the last checkpoint token it received (then
 * the entry is the seed's `ResumeRequest`).
 */
export const StreamingRequestMetaSchema = Type.Object(
  {
    operation_id: Type.String({ pattern: OPERATION_ID_PATTERN_SOURCE }),
    checkpoint_token: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CHECKPOINT_TOKEN_LENGTH })),
  },
  { $id: `${SCHEMA_BASE}/request-meta.json`, title: 'StreamingRequestMeta' },
);
export type StreamingRequestMeta = Static<typeof StreamingRequestMetaSchema>;

/** `result._meta[STREAMING_ID]`: which operation the result ends, and whether it ran from a checkpoint. */
export const StreamingResultMetaSchema = Type.Object(
  {
    operation_id: Type.String(),
    resumed: Type.Boolean(),
  },
  { $id: `${SCHEMA_BASE}/result-meta.json`, title: 'StreamingResultMeta' },
);
export type StreamingResultMeta = Static<typeof StreamingResultMetaSchema>;

/** Params of `notifications/<id>/progress` (seed `ProgressNotification`). */
export const ProgressNotificationSchema = Type.Object(
  {
    type: Type.Literal('progress'),
    operation_id: Type.String(),
    /** Completion fraction, 0 to 1; absent when indeterminate. */
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    message: Type.Optional(Type.String()),
    estimated_remaining_seconds: Type.Optional(Type.Number({ minimum: 0 })),
    /** The result so far; replaces any earlier partial result of the operation. */
    partial_result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    checkpoint_token: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/progress-notification.json`, title: 'ProgressNotification' },
);
export type ProgressNotification = Static<typeof ProgressNotificationSchema>;

/** Params of `notifications/<id>/chunk` (seed `StreamChunk`). */
export const StreamChunkSchema = Type.Object(
  {
    type: Type.Literal('stream_chunk'),
    operation_id: Type.String(),
    sequence: Type.Integer({ minimum: 0 }),
    data: Type.Optional(Type.Unknown()),
    is_final: Type.Optional(Type.Boolean()),
    /** Resumes the operation just after this chunk. */
    checkpoint_token: Type.Optional(Type.String()),
  },
  { $id: `${SCHEMA_BASE}/stream-chunk.json`, title: 'StreamChunk' },
);
export type StreamChunk = Static<typeof StreamChunkSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const STREAMING_SCHEMAS = {
  StreamingServerSettings: StreamingServerSettingsSchema,
  StreamingClientSettings: StreamingClientSettingsSchema,
  StreamingToolMeta: StreamingToolMetaSchema,
  StreamingRequestMeta: StreamingRequestMetaSchema,
  StreamingResultMeta: StreamingResultMetaSchema,
  ProgressNotification: ProgressNotificationSchema,
  StreamChunk: StreamChunkSchema,
} as const;

/**
 * Every wire shape as one JSON Schema 2020-12 document (shipped as
 * `schema.json`), each shape an embedded resource under `$defs`.
 */
export function streamingJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(STREAMING_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/streaming.json`,
    title: 'MCP streaming extension (io.github.mcp-ext/streaming)',
    description:
      'Wire payloads of the streaming extension: settings, tool metadata, request and result _meta entries, progress and chunk notifications.',
    $defs: defs,
  };
}
