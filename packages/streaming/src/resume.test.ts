import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { type Store } from '@ext/core';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { createSqliteStore, type SqliteStore } from '@ext/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { streamCall, streamingClient, type StreamUpdate } from './client.js';
import { streamingServer } from './server.js';
import { Fixture, type WorkEntry } from './testing/fixture.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serverOn(line: TestLine, fixture: Fixture, store: Store): Promise<TestPair> {
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), streamingServer()],
    clientExtensions: [errorsClient(), streamingClient()],
    setup: fixture.setup,
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    // A stable identity: checkpoints are bound to the caller, and a new connection is a new session.
    authInfo: { clientId: 'alice' },
  });
  cleanup.push(() => pair.close());
  return pair;
}

async function sqliteFile(): Promise<{ open(): SqliteStore }> {
  const dir = await mkdtemp(join(tmpdir(), 'ext-streaming-'));
  cleanup.unshift(() => rm(dir, { recursive: true, force: true }));
  return {
    open() {
      const store = createSqliteStore({ path: join(dir, 'state.db'), sweepIntervalMs: 0, logger: silentLogger });
      cleanup.push(() => store.close());
      return store;
    },
  };
}

describe.each(TEST_LINES)('resume after the server is killed, on %s', (line) => {
  it('STRM-12 STRM-19 STRM-20: a new server instance on the same SQLite file continues from the checkpoint', async () => {
    const file = await sqliteFile();
    const work: WorkEntry[] = [];
    const first = new Fixture('first', work);
    first.pauseAt = 4;
    const firstStore = file.open();
    const firstServer = await serverOn(line, first, firstStore);
    let reconnects = 0;

    const call = streamCall(
      firstServer.client,
      'export_rows',
      { rows: 10 },
      {
        autoResume: {
          delayMs: 0,
          reconnect: async () => {
            reconnects += 1;
            const second = await serverOn(line, new Fixture('second', work), file.open());
            return second.client;
          },
        },
      },
    );
    const updates: StreamUpdate[] = [];
    for await (const update of call) {
      updates.push(update);
      if (update.type === 'stream_chunk' && update.sequence === 3) {
        await first.paused.promise;
        // The first instance dies mid-operation: its store and its connection go away.
        await firstStore.close();
        await firstServer.close();
      }
    }

    expect(reconnects).toBe(1);
    expect(updates.filter((update) => update.type === 'resume')).toHaveLength(1);
    const chunks = updates.flatMap((update) => (update.type === 'stream_chunk' ? [update.sequence] : []));
    expect(chunks).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const last = updates.at(-1);
    expect(last?.type === 'result' ? last.result.structuredContent : undefined).toEqual({
      rows: 10,
      sum: 45,
      resumed: true,
    });
    // Rows 0-3 were done once by the first instance; the second started at row 4.
    expect(work).toEqual([
      ...[0, 1, 2, 3].map((row) => ({ server: 'first', row })),
      ...[4, 5, 6, 7, 8, 9].map((row) => ({ server: 'second', row })),
    ]);
    await expect(first.aborted.promise).resolves.toBeDefined();
  });

  it('STRM-10 STRM-19: chunks sent after the last checkpoint are repeated by the new instance and delivered once', async () => {
    const file = await sqliteFile();
    const work: WorkEntry[] = [];
    const first = new Fixture('first', work);
    first.checkpointEvery = 2;
    first.pauseAt = 5;
    const firstStore = file.open();
    const firstServer = await serverOn(line, first, firstStore);
    const call = streamCall(
      firstServer.client,
      'export_rows',
      { rows: 8 },
      {
        autoResume: {
          delayMs: 0,
          reconnect: async () =>
            (await serverOn(line, Object.assign(new Fixture('second', work), { checkpointEvery: 2 }), file.open()))
              .client,
        },
      },
    );
    const chunks: number[] = [];
    for await (const update of call) {
      if (update.type !== 'stream_chunk') continue;
      chunks.push(update.sequence);
      if (update.sequence === 4) {
        await first.paused.promise;
        await firstStore.close();
        await firstServer.close();
      }
    }
    expect(chunks).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Row 4 came after the last checkpoint (taken after row 3), so the new instance did it again.
    expect(work.map(({ server, row }) => `${server}:${row}`)).toEqual([
      'first:0',
      'first:1',
      'first:2',
      'first:3',
      'first:4',
      'second:4',
      'second:5',
      'second:6',
      'second:7',
    ]);
  });

  it('STRM-12: a checkpoint taken before a restart resumes by hand on a new instance', async () => {
    const file = await sqliteFile();
    const work: WorkEntry[] = [];
    const first = new Fixture('first', work);
    first.pauseAt = 2;
    const firstStore = file.open();
    const firstServer = await serverOn(line, first, firstStore);
    const call = streamCall(firstServer.client, 'export_rows', { rows: 3 });
    await expect(
      (async () => {
        for await (const update of call) {
          if (update.type === 'stream_chunk' && update.sequence === 1) {
            await first.paused.promise;
            await firstStore.close();
            await firstServer.close();
          }
        }
      })(),
    ).rejects.toThrow();
    const checkpoint = call.checkpoint;
    expect(checkpoint).toBeDefined();

    const second = await serverOn(line, new Fixture('second', work), file.open());
    const updates: StreamUpdate[] = [];
    for await (const update of streamCall(second.client, 'export_rows', { rows: 3 }, { resumeFrom: checkpoint }))
      updates.push(update);
    expect(updates.flatMap((update) => (update.type === 'stream_chunk' ? [update.sequence] : []))).toEqual([2]);
    expect(work.map(({ server, row }) => `${server}:${row}`)).toEqual(['first:0', 'first:1', 'second:2']);
  });
});
