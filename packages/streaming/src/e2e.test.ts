import { MemoryStore, type AuthInfo, type ServerExtension, type Store, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getStreamingResult,
  streamCall,
  streamingClient,
  type ChunkUpdate,
  type ProgressUpdate,
  type StreamingCall,
  type StreamUpdate,
} from './client.js';
import { getStreamingSettings, STREAMING_ID } from './index.js';
import { streamingServer, type StreamingServerOptions } from './server.js';
import { Fixture } from './testing/fixture.js';

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly server?: StreamingServerOptions | false;
  readonly client?: boolean;
  readonly store?: Store;
  readonly authInfo?: AuthInfo;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const serverExtensions: (ServerExtension | false)[] = [
    errorsServer(),
    options.server !== false && streamingServer(options.server ?? {}),
  ];
  const created = await createTestPair({
    line,
    serverExtensions,
    clientExtensions: [errorsClient(), options.client !== false && streamingClient()],
    setup: fixture.setup,
    serverOptions: { store: options.store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: options.authInfo,
  });
  open.push(created);
  return created;
}

async function collect(call: StreamingCall): Promise<StreamUpdate[]> {
  const updates: StreamUpdate[] = [];
  for await (const update of call) updates.push(update);
  return updates;
}

function chunksOf(updates: readonly StreamUpdate[]): ChunkUpdate[] {
  return updates.filter((update): update is ChunkUpdate => update.type === 'stream_chunk');
}

function progressOf(updates: readonly StreamUpdate[]): ProgressUpdate[] {
  return updates.filter((update): update is ProgressUpdate => update.type === 'progress');
}

/** `value` without the fields that are not set, as a payload travels. */
function wireSpelling(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

function resultOf(updates: readonly StreamUpdate[]): ToolResult {
  const last = updates.at(-1);
  if (last?.type !== 'result') throw new Error(`the iteration did not end with a result: ${JSON.stringify(last)}`);
  return last.result;
}

/** Streams `export_rows` until the handler pauses (after `pauseAt` rows), then stops iterating, which cancels the call. */
async function interrupted(
  client: TestPair['client'],
  fixture: Fixture,
  rows: number,
  pauseAt: number,
): Promise<StreamingCall> {
  fixture.pauseAt = pauseAt;
  const call = streamCall(client, 'export_rows', { rows });
  for await (const update of call) {
    if (update.type === 'stream_chunk' && update.sequence === pauseAt - 1) break;
  }
  await fixture.aborted.promise;
  return call;
}

const seed = seedValidators();
const ROWS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

describe.each(TEST_LINES)('streaming end to end on %s', (line) => {
  it('STRM-1 STRM-3: advertises its settings and the tools that take checkpoints', async () => {
    const { client } = await pair(line, new Fixture('A'));
    expect(getStreamingSettings(client.serverExtensions())).toEqual({ version: '1.0', checkpoint_ttl_seconds: 86_400 });
    const tools = await client.listTools();
    expect(tools.find((tool) => tool.name === 'export_rows')?._meta?.[STREAMING_ID]).toEqual({ checkpoints: true });
    expect(tools.find((tool) => tool.name === 'report')?._meta?.[STREAMING_ID]).toBeUndefined();
  });

  it('STRM-5 STRM-7 STRM-8 STRM-9 STRM-10: streams progress, partial results and ordered chunks before the result', async () => {
    const { client } = await pair(line, new Fixture('A'));
    const call = streamCall(client, 'report', { steps: 3 });
    const updates = await collect(call);

    const progress = progressOf(updates);
    const withNumbers = progress.filter((update) => update.message !== undefined);
    expect(
      withNumbers.map(({ done, total, progress: fraction, message, estimatedRemainingSeconds }) => ({
        done,
        total,
        fraction,
        message,
        estimatedRemainingSeconds,
      })),
    ).toEqual([
      { done: 1, total: 3, fraction: 1 / 3, message: 'step 1', estimatedRemainingSeconds: 2 },
      { done: 2, total: 3, fraction: 2 / 3, message: 'step 2', estimatedRemainingSeconds: 1 },
      { done: 3, total: 3, fraction: 1, message: 'step 3', estimatedRemainingSeconds: 0 },
    ]);
    expect(progress.flatMap((update) => (update.partialResult === undefined ? [] : [update.partialResult]))).toEqual([
      { lines: ['line 1'] },
      { lines: ['line 1', 'line 2'] },
      { lines: ['line 1', 'line 2', 'line 3'] },
    ]);
    expect(progress.every((update) => update.operationId === call.operationId)).toBe(true);

    const chunks = chunksOf(updates);
    expect(chunks.map(({ sequence, data, isFinal }) => ({ sequence, data, isFinal }))).toEqual([
      { sequence: 0, data: 'line 1', isFinal: false },
      { sequence: 1, data: 'line 2', isFinal: false },
      { sequence: 2, data: 'line 3', isFinal: true },
    ]);
    // Everything arrives before the result, in the order the handler sent it.
    expect(updates.findIndex((update) => update.type === 'result')).toBe(updates.length - 1);
    expect(updates.indexOf(chunks[0]!)).toBeLessThan(updates.indexOf(withNumbers[1]!));

    // Each update is the seed payload the server sent, camelCase: back in the seed's spelling it validates.
    for (const update of progress) {
      const {
        done: _done,
        total: _total,
        operationId,
        estimatedRemainingSeconds,
        partialResult,
        checkpointToken,
        ...rest
      } = update;
      const payload = wireSpelling({
        ...rest,
        operation_id: operationId,
        estimated_remaining_seconds: estimatedRemainingSeconds,
        partial_result: partialResult,
        checkpoint_token: checkpointToken,
      });
      expect(seed.check('streaming', 'ProgressNotification')(payload)).toEqual({ valid: true, errors: '' });
    }
    for (const { operationId, isFinal, checkpointToken, ...rest } of chunks) {
      const payload = wireSpelling({
        ...rest,
        operation_id: operationId,
        is_final: isFinal,
        checkpoint_token: checkpointToken,
      });
      expect(seed.check('streaming', 'StreamChunk')(payload)).toEqual({ valid: true, errors: '' });
    }

    const result = resultOf(updates);
    expect(result.structuredContent).toEqual({ lines: ['line 1', 'line 2', 'line 3'] });
    expect(getStreamingResult(result)).toEqual({ operation_id: call.operationId, resumed: false });
  });

  it('STRM-11 STRM-12 STRM-13: resumes from the last checkpoint without redoing finished work', async () => {
    const fixture = new Fixture('A');
    const { client } = await pair(line, fixture);
    const first = await interrupted(client, fixture, 10, 3);
    expect(first.checkpoint?.operationId).toBe(first.operationId);
    expect(first.checkpoint).toBeDefined();
    // The checkpoint is the seed's ResumeRequest, camelCase.
    const resumeRequest = {
      operation_id: first.checkpoint?.operationId,
      checkpoint_token: first.checkpoint?.checkpointToken,
    };
    expect(seed.check('streaming', 'ResumeRequest')(resumeRequest)).toEqual({ valid: true, errors: '' });

    const second = streamCall(client, 'export_rows', { rows: 10 }, { resumeFrom: first.checkpoint });
    expect(second.operationId).toBe(first.operationId);
    const updates = await collect(second);
    expect(chunksOf(updates).map((chunk) => chunk.sequence)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(chunksOf(updates).at(-1)?.isFinal).toBe(true);
    const result = resultOf(updates);
    expect(result.structuredContent).toEqual({ rows: 10, sum: 45, resumed: true });
    expect(getStreamingResult(result)).toEqual({ operation_id: first.operationId, resumed: true });
    expect(fixture.work.map((entry) => entry.row)).toEqual(ROWS);
  });

  it('STRM-16: cancelling the call aborts the handler', async () => {
    const fixture = new Fixture('A');
    const { client } = await pair(line, fixture);
    const controller = new AbortController();
    const call = streamCall(client, 'wait_for_cancel', {}, { signal: controller.signal });
    const seen: StreamUpdate[] = [];
    await expect(
      (async () => {
        for await (const update of call) {
          seen.push(update);
          if (update.type === 'stream_chunk') controller.abort(new Error('user cancelled'));
        }
      })(),
    ).rejects.toThrow();
    expect(seen.map((update) => update.type)).toEqual(['stream_chunk']);
    await expect(fixture.aborted.promise).resolves.toBeDefined();
  });

  it('STRM-13: a checkpoint cannot be resumed by another principal', async () => {
    const store = new MemoryStore();
    const fixture = new Fixture('A');
    const alice = await pair(line, fixture, { store, authInfo: { clientId: 'alice' } });
    const first = await interrupted(alice.client, fixture, 5, 2);
    const bob = await pair(line, new Fixture('B'), { store, authInfo: { clientId: 'bob' } });
    const result = resultOf(
      await collect(streamCall(bob.client, 'export_rows', { rows: 5 }, { resumeFrom: first.checkpoint })),
    );
    expect(result.isError).toBe(true);
    expect(getStructuredError(result)).toMatchObject({ code: 'CHECKPOINT_NOT_FOUND', category: 'invalid_input' });
    // The owner still can.
    const resumed = resultOf(
      await collect(streamCall(alice.client, 'export_rows', { rows: 5 }, { resumeFrom: first.checkpoint })),
    );
    expect(resumed.structuredContent).toEqual({ rows: 5, sum: 10, resumed: true });
  });

  it('STRM-14: refuses unknown, tampered, mismatched and expired checkpoints with structured errors', async () => {
    const clock = { now: Date.now() };
    const fixture = new Fixture('A');
    const { client } = await pair(line, fixture, { server: { checkpointTtlSeconds: 60, now: () => clock.now } });
    const first = await interrupted(client, fixture, 5, 2);
    const checkpoint = first.checkpoint!;
    const refusal = async (
      args: Record<string, unknown>,
      resumeFrom: { operationId: string; checkpointToken: string },
    ) => getStructuredError(resultOf(await collect(streamCall(client, 'export_rows', args, { resumeFrom }))));

    const pointer = `/_meta/${STREAMING_ID.replace('/', '~1')}/checkpoint_token`;
    expect(await refusal({ rows: 5 }, { ...checkpoint, checkpointToken: 'made-up' })).toMatchObject({
      code: 'CHECKPOINT_NOT_FOUND',
      category: 'invalid_input',
      details: { field: 'checkpoint_token', pointer },
    });
    const tampered = checkpoint.checkpointToken.replace(
      /^v1\.(\d+)\./,
      (_match, seconds: string) => `v1.${Number(seconds) + 1}.`,
    );
    expect(await refusal({ rows: 5 }, { ...checkpoint, checkpointToken: tampered })).toMatchObject({
      code: 'CHECKPOINT_NOT_FOUND',
    });
    expect(await refusal({ rows: 6 }, checkpoint)).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      details: { field: 'arguments' },
    });
    expect(await refusal({ rows: 5 }, { ...checkpoint, operationId: 'someone-else' })).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      details: { field: 'operation_id' },
    });
    clock.now += 61_000;
    expect(await refusal({ rows: 5 }, checkpoint)).toMatchObject({
      code: 'CHECKPOINT_EXPIRED',
      category: 'invalid_input',
    });
    expect(fixture.work.map((entry) => entry.row)).toEqual([0, 1]);
  });

  it('STRM-4 STRM-15: refuses a malformed entry and a resume of a tool without checkpoints', async () => {
    const { client } = await pair(line, new Fixture('A'));
    const malformed = await client.callTool(
      'report',
      { steps: 1 },
      { meta: { [STREAMING_ID]: { operation_id: 'has spaces' } } },
    );
    expect(getStructuredError(malformed)).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'operation_id', pointer: `/_meta/${STREAMING_ID.replace('/', '~1')}/operation_id` },
    });
    const notObject = await client.callTool('report', { steps: 1 }, { meta: { [STREAMING_ID]: 'op-1' } });
    expect(getStructuredError(notObject)).toMatchObject({ code: 'INVALID_INPUT', details: { field: STREAMING_ID } });
    const unsupported = await client.callTool(
      'report',
      { steps: 1 },
      { meta: { [STREAMING_ID]: { operation_id: 'op-1', checkpoint_token: 'v1.1.x' } } },
    );
    expect(getStructuredError(unsupported)).toMatchObject({
      code: 'CHECKPOINTS_UNSUPPORTED',
      category: 'invalid_input',
    });
  });

  it('STRM-17: a resumed execution fences off the older one at its next checkpoint', async () => {
    const fixture = new Fixture('A');
    const { client } = await pair(line, fixture);
    fixture.pauseAt = 2;
    const zombie = streamCall(client, 'export_rows', { rows: 4 });
    const zombieUpdates: StreamUpdate[] = [];
    const iterator = zombie[Symbol.asyncIterator]();
    while (zombie.checkpoint === undefined || chunksOf(zombieUpdates).length < 2) {
      const next = await iterator.next();
      if (next.done === true) throw new Error('ended early');
      zombieUpdates.push(next.value);
    }
    await fixture.paused.promise;
    const takeover = resultOf(
      await collect(streamCall(client, 'export_rows', { rows: 4 }, { resumeFrom: zombie.checkpoint })),
    );
    expect(takeover.structuredContent).toEqual({ rows: 4, sum: 6, resumed: true });
    fixture.release.resolve();
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) break;
      zombieUpdates.push(next.value);
    }
    expect(getStructuredError(resultOf(zombieUpdates))).toMatchObject({ code: 'OPERATION_SUPERSEDED' });
    // The older execution stopped at its first checkpoint after the takeover: one row, never the rest.
    expect(fixture.work).toEqual([
      { server: 'A', row: 0 },
      { server: 'A', row: 1 },
      { server: 'A', row: 2 },
      { server: 'A', row: 3 },
      { server: 'A', row: 2 },
    ]);
  });

  it('STRM-6: a tool that saves an undeclared checkpoint fails loudly', async () => {
    const { client } = await pair(line, new Fixture('A'));
    const result = resultOf(await collect(streamCall(client, 'undeclared_checkpoint')));
    expect(result.isError).toBe(true);
  });

  it('STRM-2 STRM-18: a client without the extension gets plain MCP progress and no streaming data', async () => {
    const { client } = await pair(line, new Fixture('A'), { client: false });
    const progress: unknown[] = [];
    const result = await client.callTool('probe', {}, { onProgress: (update) => progress.push(update) });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(result.structuredContent).toEqual({
      enabled: false,
      resumable: false,
      operation_id: null,
      checkpoint_token: null,
    });
    expect(result._meta?.[STREAMING_ID]).toBeUndefined();
    // The iterator degrades the same way.
    const updates = await collect(streamCall(client, 'probe'));
    expect(updates.map((update) => update.type)).toEqual(['progress', 'result']);
    expect(updates[0]).toEqual({ type: 'progress', done: 1, total: 2, progress: 0.5, message: 'half' });
  });

  it('STRM-2: a call that follows no operation is handled as plain MCP', async () => {
    const { client } = await pair(line, new Fixture('A'));
    const result = await client.callTool('probe');
    expect(result.structuredContent).toEqual({
      enabled: false,
      resumable: false,
      operation_id: null,
      checkpoint_token: null,
    });
    expect(result._meta?.[STREAMING_ID]).toBeUndefined();
  });

  it('STRM-18: a server without the extension still gives the iterator progress and the result', async () => {
    const { client } = await pair(line, new Fixture('A'), { server: false });
    const updates = await collect(streamCall(client, 'report', { steps: 2 }));
    expect(updates.map((update) => update.type)).toEqual(['progress', 'progress', 'result']);
    expect(resultOf(updates).structuredContent).toEqual({ lines: ['line 1', 'line 2'] });
    await expect(
      collect(
        streamCall(
          client,
          'export_rows',
          { rows: 2 },
          { resumeFrom: { operationId: 'op-1', checkpointToken: 'v1.1.abc' } },
        ),
      ),
    ).rejects.toThrow(/does not support/);
  });

  it('STRM-12: a follower of a resumable tool sees its checkpoint token on the stream', async () => {
    const { client } = await pair(line, new Fixture('A'));
    const call = streamCall(client, 'probe');
    const updates = await collect(call);
    const result = resultOf(updates);
    const facts = result.structuredContent as {
      enabled: boolean;
      resumable: boolean;
      operation_id: string;
      checkpoint_token: string;
    };
    expect(facts).toMatchObject({ enabled: true, resumable: true, operation_id: call.operationId });
    expect(call.checkpoint).toEqual({ operationId: call.operationId, checkpointToken: facts.checkpoint_token });
    expect(progressOf(updates).find((update) => update.checkpointToken !== undefined)?.checkpointToken).toBe(
      facts.checkpoint_token,
    );
  });
});
