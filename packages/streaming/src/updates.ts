/**
 * The updates `streamCall` yields, built camelCase from what the server
 * sent, with the snake_case spellings of 0.1 kept as deprecated getters
 * that warn once.
 */
import { deprecatedAliases } from '@ext/core/kit';
import type { Checkpoint, ChunkUpdate, ProgressUpdate, ResumeUpdate } from './call-types.js';
import type { ProgressNotification, StreamChunk } from './schema.js';

const WHERE = '@ext/streaming streamCall update';

const RENAMES = {
  operation_id: 'operationId',
  checkpoint_token: 'checkpointToken',
  estimated_remaining_seconds: 'estimatedRemainingSeconds',
  partial_result: 'partialResult',
  is_final: 'isFinal',
} as const;

type Renamed = keyof typeof RENAMES;

function withAliases<T extends object>(value: Omit<T, Renamed>, names: readonly Renamed[], where = WHERE): T {
  const renames = Object.fromEntries(names.map((name) => [name, RENAMES[name]]));
  return deprecatedAliases(where, value, renames) as T;
}

/** Only the fields that are set: an absent optional field stays absent. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function checkpointOf(operationId: string, checkpointToken: string): Checkpoint {
  return withAliases<Checkpoint>(
    { operationId, checkpointToken },
    ['operation_id', 'checkpoint_token'],
    '@ext/streaming Checkpoint',
  );
}

/** A progress update: the extension's notification when there is one, MCP's numbers when they came. */
export function progressUpdateOf(
  payload: ProgressNotification | undefined,
  numbers: { readonly done?: number | undefined; readonly total?: number | undefined; readonly message?: string },
  fraction?: number,
): ProgressUpdate {
  const update = defined({
    type: 'progress' as const,
    operationId: payload?.operation_id,
    done: numbers.done,
    total: numbers.total,
    progress: payload === undefined ? fraction : payload.progress,
    message: payload === undefined ? numbers.message : payload.message,
    estimatedRemainingSeconds: payload?.estimated_remaining_seconds,
    partialResult: payload?.partial_result,
    checkpointToken: payload?.checkpoint_token,
  });
  return withAliases<ProgressUpdate>(update, [
    'operation_id',
    'estimated_remaining_seconds',
    'partial_result',
    'checkpoint_token',
  ]);
}

export function chunkUpdateOf(chunk: StreamChunk): ChunkUpdate {
  const update = defined({
    type: 'stream_chunk' as const,
    operationId: chunk.operation_id,
    sequence: chunk.sequence,
    data: chunk.data,
    isFinal: chunk.is_final,
    checkpointToken: chunk.checkpoint_token,
  });
  return withAliases<ChunkUpdate>(update, ['operation_id', 'is_final', 'checkpoint_token']);
}

export function resumeUpdateOf(checkpoint: Checkpoint, attempt: number, error: unknown): ResumeUpdate {
  const { operationId, checkpointToken } = checkpoint;
  return withAliases<ResumeUpdate>({ type: 'resume', operationId, checkpointToken, attempt, error }, [
    'operation_id',
    'checkpoint_token',
  ]);
}
