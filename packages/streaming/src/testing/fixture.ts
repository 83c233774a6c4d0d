// Tools and helpers shared by this package's end-to-end tests.
import type { ExtendedServer, ToolResult } from '@ext/core';
import * as z from 'zod';
import { STREAMING_ID } from '../schema.js';
import { streamOf } from '../server.js';

export interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Rejects with the signal's reason once it aborts. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

export interface WorkEntry {
  readonly server: string;
  readonly row: number;
}

function text(value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** The fixture's tools and a log of the work they really did. */
export class Fixture {
  /** Every row any `export_rows` execution processed, by server label. */
  readonly work: WorkEntry[];
  /** Labels the rows this fixture's server processes. */
  readonly label: string;
  /** When set, `export_rows` pauses once after finishing this many rows, until `release` or an abort. */
  pauseAt: number | undefined;
  /** `export_rows` saves a checkpoint after every this many rows. */
  checkpointEvery = 1;
  paused = deferred();
  release = deferred();
  /** Resolves with the reason when a handler saw its call aborted. */
  aborted = deferred<unknown>();

  constructor(label: string, work: WorkEntry[] = []) {
    this.label = label;
    this.work = work;
  }

  readonly setup = (server: ExtendedServer): void => {
    server.registerTool(
      'export_rows',
      {
        description: 'Exports rows one chunk at a time; resumable',
        inputSchema: z.object({ rows: z.number().int().min(1).max(1000) }),
        _meta: { [STREAMING_ID]: { checkpoints: true } },
      },
      async ({ rows }, ctx) => {
        const stream = streamOf<{ next: number; sum: number }>(ctx);
        let sum = stream.resumeState?.sum ?? 0;
        for (let row = stream.resumeState?.next ?? 0; row < rows; row += 1) {
          stream.signal.throwIfAborted();
          this.work.push({ server: this.label, row });
          sum += row;
          await stream.progress(row + 1, rows, `row ${row + 1} of ${rows}`, {
            estimatedRemainingSeconds: rows - row - 1,
          });
          const checkpoint = (row + 1) % this.checkpointEvery === 0 ? { next: row + 1, sum } : undefined;
          await stream.chunk({ row }, { checkpoint, final: row === rows - 1 });
          if (this.pauseAt === row + 1) {
            this.pauseAt = undefined;
            this.paused.resolve();
            try {
              await Promise.race([this.release.promise, untilAborted(stream.signal)]);
            } catch (error) {
              this.aborted.resolve(error);
              throw error;
            }
          }
        }
        return {
          ...text(`exported ${rows} rows, sum ${sum}`),
          structuredContent: { rows, sum, resumed: stream.resumed },
        };
      },
    );

    server.registerTool(
      'report',
      {
        description: 'Builds a report in steps, showing partial results',
        inputSchema: z.object({ steps: z.number().int().min(1).max(100) }),
      },
      async ({ steps }, ctx) => {
        const stream = streamOf(ctx);
        const lines: string[] = [];
        for (let step = 1; step <= steps; step += 1) {
          lines.push(`line ${step}`);
          await stream.progress(step, steps, `step ${step}`, { estimatedRemainingSeconds: steps - step });
          await stream.partial({ lines: [...lines] });
          await stream.chunk(`line ${step}`, { final: step === steps });
        }
        return { ...text(lines.join('\n')), structuredContent: { lines } };
      },
    );

    server.registerTool('wait_for_cancel', { description: 'Runs until cancelled' }, async (_args, ctx) => {
      const stream = streamOf(ctx);
      await stream.chunk('started');
      try {
        return await untilAborted(stream.signal);
      } catch (error) {
        this.aborted.resolve(error);
        throw error;
      }
    });

    server.registerTool(
      'undeclared_checkpoint',
      { description: 'Saves a checkpoint without declaring it' },
      async (_args, ctx) => {
        await streamOf(ctx).checkpoint({ at: 1 });
        return text('unreachable');
      },
    );

    server.registerTool(
      'probe',
      { description: 'Reports what the handler sees', _meta: { [STREAMING_ID]: { checkpoints: true } } },
      async (_args, ctx) => {
        const stream = streamOf(ctx);
        await stream.progress(1, 2, 'half');
        await stream.chunk('only', { final: true });
        const token = await stream.checkpoint({ at: 1 });
        return {
          ...text('probed'),
          structuredContent: {
            enabled: stream.enabled,
            resumable: stream.resumable,
            operation_id: stream.operationId ?? null,
            checkpoint_token: token ?? null,
          },
        };
      },
    );
  };
}
