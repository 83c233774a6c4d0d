/**
 * `GET {base}/api/events`: the live stream (Server-Sent Events) of requests
 * that change, on any instance, from `desk.watch`; a comment every 15 s
 * keeps proxies from closing it, and checks the sign-in still holds. It
 * stops watching when the client goes away.
 */
import type { ApprovalRecord } from '../record.js';
import type { PageContext } from './context.js';
import { pageRecord } from './page-record.js';
import { eventStreamResponse } from './responses.js';

/** How often the stream says it is alive. */
export const PING_MS = 15_000;

/** One Server-Sent Event; `data` is JSON, which has no raw line breaks. */
function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The stream for one client. `stillAllowed` is asked at every ping: once
 * the caller signed out (or lost the scope) the stream says so and ends.
 */
export function eventStream(ctx: PageContext, request: Request, stillAllowed: () => Promise<boolean>): Response {
  const encoder = new TextEncoder();
  let end: (cancelled: boolean) => void = () => undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let unwatch: (() => Promise<void>) | undefined;
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const onRecord = (record: ApprovalRecord) => {
        send(sseEvent('request', pageRecord(ctx.config.desk, record)));
      };
      const ping = setInterval(() => {
        void stillAllowed().then(
          (allowed) => {
            if (allowed) send(': ping\n\n');
            else {
              send(sseEvent('signed-out', {}));
              end(false);
            }
          },
          () => {
            end(false);
          },
        );
      }, PING_MS);
      ping.unref();
      const onAbort = () => {
        end(false);
      };
      end = (cancelled) => {
        if (closed) return;
        closed = true;
        clearInterval(ping);
        request.signal.removeEventListener('abort', onAbort);
        const stop = unwatch;
        unwatch = undefined;
        if (stop !== undefined) void stop().catch(() => undefined);
        if (!cancelled) controller.close();
      };
      request.signal.addEventListener('abort', onAbort, { once: true });
      send('retry: 3000\n: live\n\n');
      ctx.config.desk.watch(onRecord).then(
        (stop) => {
          if (closed) void stop().catch(() => undefined);
          else unwatch = stop;
        },
        (error: unknown) => {
          if (!closed) controller.error(error);
          end(true);
        },
      );
      if (request.signal.aborted) onAbort();
    },
    cancel() {
      end(true);
    },
  });
  return eventStreamResponse(body);
}
