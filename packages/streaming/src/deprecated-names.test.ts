import { silentLogger } from '@ext/core/kit';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamCall, streamingClient, type StreamUpdate } from './client.js';
import { streamingServer } from './server.js';
import { Fixture } from './testing/fixture.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const open: TestPair[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

async function pair(fixture: Fixture): Promise<TestPair> {
  const created = await createTestPair({
    line: 'v1',
    serverExtensions: [streamingServer()],
    clientExtensions: [streamingClient()],
    setup: fixture.setup,
    serverOptions: { logger: silentLogger },
  });
  open.push(created);
  return created;
}

function warned(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.flatMap(([message]) => {
    const name = /"(\w+)" is deprecated/.exec(String(message))?.[1];
    return name === undefined ? [] : [name];
  });
}

describe('deprecated snake_case spellings (0.1)', () => {
  it('STRM-7 STRM-9: updates still answer operation_id, estimated_remaining_seconds, partial_result, is_final and checkpoint_token, warning once each', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { client } = await pair(new Fixture('A'));
    const updates: StreamUpdate[] = [];
    for await (const update of streamCall(client, 'report', { steps: 2 })) updates.push(update);
    for await (const update of streamCall(client, 'probe')) updates.push(update);
    const old = updates.flatMap((update) => {
      if (update.type === 'progress' && update.operationId !== undefined)
        return [
          update.operation_id === update.operationId,
          update.estimated_remaining_seconds === update.estimatedRemainingSeconds,
          update.partial_result === update.partialResult,
          update.checkpoint_token === update.checkpointToken,
        ];
      if (update.type === 'stream_chunk')
        return [update.operation_id === update.operationId, update.is_final === update.isFinal];
      return [];
    });
    expect(old.length).toBeGreaterThan(0);
    expect(old.every(Boolean)).toBe(true);
    expect(warned(emitted).sort()).toEqual([
      'checkpoint_token',
      'estimated_remaining_seconds',
      'is_final',
      'operation_id',
      'partial_result',
    ]);
  });

  it('STRM-11: a checkpoint still answers operation_id and checkpoint_token, and resumeFrom still takes them, warning once each', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const fixture = new Fixture('A');
    const { client } = await pair(fixture);
    fixture.pauseAt = 2;
    const first = streamCall(client, 'export_rows', { rows: 4 });
    for await (const update of first) if (update.type === 'stream_chunk' && update.sequence === 1) break;
    await fixture.aborted.promise;
    const saved = {
      operation_id: first.checkpoint?.operation_id,
      checkpoint_token: first.checkpoint?.checkpoint_token,
    };
    expect(saved.operation_id).toBe(first.operationId);
    const updates: StreamUpdate[] = [];
    const resumeFrom = JSON.parse(JSON.stringify(saved)) as { operation_id: string; checkpoint_token: string };
    for await (const update of streamCall(client, 'export_rows', { rows: 4 }, { resumeFrom })) updates.push(update);
    const result = updates.at(-1);
    expect(result?.type === 'result' ? result.result.structuredContent : undefined).toEqual({
      rows: 4,
      sum: 6,
      resumed: true,
    });
    expect(fixture.work.map((entry) => entry.row)).toEqual([0, 1, 2, 3]);
    const names = warned(emitted);
    expect(names.filter((name) => name === 'operation_id')).toHaveLength(2); // the checkpoint's getter, resumeFrom
    expect(names.filter((name) => name === 'checkpoint_token')).toHaveLength(2);
  });
});
