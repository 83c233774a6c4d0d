/** The README's client half: a streamed call, shown as it runs and resumed automatically when interrupted. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient } from '@ext/errors/client';
import { streamCall, streamingClient } from '@ext/streaming/client';

const sdkClient = new Client({ name: 'exporter', version: '1.0.0' });
const client = extendClient(sdkClient, [errorsClient(), streamingClient()]);
const url = new URL('http://127.0.0.1:3333/mcp');
await sdkClient.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
);

const call = streamCall(client, 'export_rows', { table: 'orders' }, { autoResume: true, timeoutMs: 600_000 });
for await (const update of call) {
  switch (update.type) {
    case 'progress': // { done, total, progress (0..1), message, estimatedRemainingSeconds, partialResult, checkpointToken }
      bar.update(update.progress ?? 0, update.message);
      break;
    case 'stream_chunk': // { sequence, data, isFinal }: in order, each once, across resumes
      received.push(update.data);
      break;
    case 'resume': // the connection dropped; continuing from update.checkpointToken
      bar.note(`resuming (attempt ${update.attempt})`);
      break;
    case 'result':
      finish(update.result); // a CallToolResult, possibly isError
  }
}
// #endregion client

declare const token: string;
declare const bar: { update(fraction: number, message?: string): void; note(message: string): void };
declare const received: unknown[];
declare function finish(result: unknown): void;
