/** Stream and file helpers for the bytes this package moves: metering, slicing, writing, closing, and the errors to ignore. */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { isRecord } from '@ext/core/kit';

/** Thrown inside a byte stream that went past its limit. */
export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${String(limit)} bytes`);
  }
}

/** Counts and hashes the bytes that pass, and fails past `limit`. */
export class Meter extends Transform {
  readonly #hash = createHash('sha256');
  readonly #limit: number;
  size = 0;

  constructor(limit = Number.POSITIVE_INFINITY) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.#limit) {
      callback(new TooLarge(this.#limit));
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}

/** The first `length` bytes of `source` (generators may yield more or less per chunk). */
export async function* slice(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  length: number,
): AsyncGenerator<Uint8Array> {
  let left = length;
  for await (const chunk of source) {
    if (left <= 0) break;
    if (chunk.length <= left) {
      left -= chunk.length;
      yield chunk;
    } else {
      yield chunk.subarray(0, left);
      left = 0;
    }
  }
  if (left > 0) throw new Error(`the generator ended ${String(left)} bytes early`);
}

/** The size and SHA-256 (hex) of everything `source` yields. */
export async function hashOf(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of source) {
    sizeBytes += chunk.length;
    hash.update(chunk);
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/** Writes one chunk, waiting for the sink to drain first when it asks to. */
export async function write(writable: Writable, chunk: Uint8Array): Promise<void> {
  if (writable.errored !== null) throw writable.errored;
  // Backpressure: wait for the sink to drain before reading more from the network.
  if (!writable.write(chunk)) await once(writable, 'drain');
}

/** Ends `writable` and waits until every byte is written. */
export async function finish(writable: Writable): Promise<void> {
  if (writable.errored !== null) throw writable.errored;
  const done = once(writable, 'finish');
  writable.end();
  await done;
}

/**
 * Destroys a file stream and waits until it is closed: one destroyed before
 * it opened would otherwise create the file after it was deleted. An error it
 * still has to emit is the failure being discarded, already reported.
 */
export async function closed(stream: Writable): Promise<void> {
  if (stream.closed) return;
  await new Promise<void>((resolve) => {
    stream.on('error', () => undefined);
    stream.once('close', () => {
      resolve();
    });
    stream.destroy();
  });
}

/** For `.catch`: a file that is already gone is fine; any other failure is not. */
export function ignoreMissing(error: unknown): undefined {
  if (isRecord(error) && error.code === 'ENOENT') return undefined;
  throw error;
}

/** Whether `error` says the other end went away mid-transfer. */
export function isPrematureClose(error: unknown): boolean {
  return (
    isRecord(error) &&
    (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE')
  );
}
