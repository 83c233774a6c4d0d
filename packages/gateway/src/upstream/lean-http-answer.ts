/**
 * The HTTP answer to a lean call (`lean-http.ts`), read as the SDK client's
 * Streamable HTTP transport reads it: a refusal as its HTTP error (or the
 * JSON-RPC error a 400 carries), a JSON body whole, an event stream event by
 * event until the response to the call comes, and an answer cut short as the
 * gateway's fetch and its watch on the SDK's responses fail it.
 */
import type { IncomingMessage } from 'node:http';
import { SdkError, SdkErrorCode, SdkHttpError, type CallToolResult } from '@modelcontextprotocol/client';
import { isPlainObject, parsed, type Reader } from './lean-http-messages.js';

/** What a call rejects with: errors as they are (an aborted signal's reason included, which is one by default). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function readText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The `data` of each event of an event stream, as its lines arrive; `undefined` until one is whole. */
class EventStream {
  #buffer = '';
  #data: string[] = [];

  /** The events completed by `chunk`, each its data lines joined. */
  push(chunk: string): string[] {
    this.#buffer += chunk;
    const events: string[] = [];
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      if (end === -1) return events;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.#data.length > 0) events.push(this.#data.join('\n'));
        this.#data = [];
      } else if (line.startsWith('data:')) {
        this.#data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
  }
}

/** The answer to a call read from an event stream, message by message, until the response to it comes. */
function readStream(res: IncomingMessage, reader: Reader): Promise<CallToolResult> {
  return new Promise((resolve, reject) => {
    const events = new EventStream();
    let done = false;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (done) return;
      try {
        for (const data of events.push(chunk)) {
          const outcome = reader.event(data);
          if (outcome !== undefined) {
            done = true;
            res.destroy();
            resolve(outcome.result);
            return;
          }
        }
      } catch (error) {
        done = true;
        res.destroy();
        reject(asError(error));
      }
    });
    res.on('close', () => {
      if (done) return;
      done = true;
      // A stream that ended without the answer leaves the SDK waiting for it until the call times out; one
      // that broke off fails the call at once (the gateway's watch on the SDK's responses does the same).
      if (res.complete) return;
      reject(
        new SdkError(SdkErrorCode.ConnectionClosed, 'its answer broke off: the response broke off before its end'),
      );
    });
  });
}

/** An answer that is no success: the error the SDK client's transport throws for it. */
async function refused(res: IncomingMessage, reader: Reader): Promise<never> {
  const status = res.statusCode ?? 502;
  const text = await readText(res);
  // A 400 that answers the call with a JSON-RPC error is that error; anything else, a 401 included (the
  // gateway's client has no auth provider), is the HTTP error below.
  if (status === 400) {
    let answer: Record<string, unknown> | undefined;
    try {
      answer = parsed(JSON.parse(text));
    } catch {
      // Not a JSON-RPC message: the HTTP error below.
    }
    if (answer !== undefined && isPlainObject(answer.error)) reader.message(answer);
  }
  throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
    status,
    statusText: res.statusMessage ?? '',
    text,
  });
}

/**
 * A JSON body, read whole. One cut short fails as it does through the
 * gateway's fetch: a body of announced length as a failed fetch, one read as
 * it came as an answer that broke off.
 */
async function readJson(res: IncomingMessage): Promise<string> {
  try {
    return await readText(res);
  } catch (error) {
    if (res.headers['content-length'] !== undefined) throw new TypeError('fetch failed', { cause: error });
    throw new SdkError(SdkErrorCode.ConnectionClosed, 'its answer broke off: the response broke off before its end');
  }
}

/** Never settles: the SDK waits for an answer that does not come until the call times out, and so does this. */
function noAnswer(res: IncomingMessage): Promise<never> {
  res.resume();
  return new Promise<never>(() => undefined);
}

/** The call's outcome from the upstream's answer `res`. */
export async function answer(res: IncomingMessage, reader: Reader): Promise<CallToolResult> {
  const status = res.statusCode ?? 502;
  if (status < 200 || status >= 300) return refused(res, reader);
  if (status === 202) return noAnswer(res);
  const type = mediaType(res.headers['content-type']);
  if (type === 'text/event-stream') return readStream(res, reader);
  if (type === 'application/json') {
    const outcome = reader.body(JSON.parse(await readJson(res)));
    return outcome === undefined ? noAnswer(res) : outcome.result;
  }
  res.resume();
  const contentType = res.headers['content-type'] ?? null;
  throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${String(contentType)}`, {
    contentType,
  });
}
