import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalDesk } from '../desk.js';
import { approvalsPage } from './handler.js';
import { PING_MS } from './events.js';
import { APPROVER_KEY, authenticate, holdCall, pageFixture, signIn } from './test-fixtures.js';

const ORIGIN = 'http://127.0.0.1:8080';

/** The desk, telling when a watch is stopped. */
function watchedDesk(desk: ApprovalDesk): { desk: ApprovalDesk; stopped: () => number } {
  let stops = 0;
  return {
    desk: {
      ...desk,
      async watch(listener) {
        const stop = await desk.watch(listener);
        return async () => {
          stops += 1;
          await stop();
        };
      },
    },
    stopped: () => stops,
  };
}

async function nextEvent(reader: ReadableStreamDefaultReader<Uint8Array>, wanted: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${wanted}: ${text}`);
    text += decoder.decode(value);
    if (text.includes(wanted)) return text;
  }
}

describe('GET {base}/api/events', () => {
  it('sends each changed request as it changes, and stops watching when the client goes away', async () => {
    const fixture = pageFixture();
    const { desk, stopped } = watchedDesk(fixture.desk);
    const page = approvalsPage({ desk, authenticate });
    const aborter = new AbortController();
    const response = await page.fetch(
      new Request(`${ORIGIN}/approvals/api/events`, {
        headers: { authorization: `Bearer ${APPROVER_KEY}` },
        signal: aborter.signal,
      }),
    );
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response?.headers.get('cache-control')).toBe('no-store');
    const reader = (response?.body as ReadableStream<Uint8Array>).getReader();
    expect(await nextEvent(reader, ': live')).toContain('retry: 3000');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const record = await holdCall(fixture.desk, { tool: 'restart_service' });
    const requested = await nextEvent(reader, 'event: request');
    const data = JSON.parse(/data: (.*)\n/.exec(requested)?.[1] ?? 'null') as Record<string, unknown>;
    expect(data).toMatchObject({ id: record.id, state: 'pending', tool: 'restart_service' });

    await fixture.desk.decide(record.id, { approve: true, by: 'alice@example.com' });
    const decided = await nextEvent(reader, '"state":"approved"');
    expect(decided).toContain('"decided_by":"alice@example.com"');

    aborter.abort();
    await expect(reader.read()).resolves.toMatchObject({ done: true });
    expect(stopped()).toBe(1);
  });
});

describe('GET {base}/api/events: pings', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pings every 15 s while the sign-in holds, then says signed-out and ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const fixture = pageFixture();
    const signedIn = await signIn(fixture.page, ORIGIN);
    const response = await fixture.page.fetch(
      new Request(`${ORIGIN}/approvals/api/events`, { headers: { cookie: signedIn.cookie } }),
    );
    const reader = (response?.body as ReadableStream<Uint8Array>).getReader();
    await nextEvent(reader, ': live');
    await vi.advanceTimersByTimeAsync(PING_MS);
    expect(await nextEvent(reader, ': ping')).toContain(': ping');

    const signOut = await fixture.page.fetch(
      new Request(`${ORIGIN}/approvals/sign-out`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signedIn.cookie },
        body: new URLSearchParams({ csrf: signedIn.csrf }).toString(),
      }),
    );
    expect(signOut?.status).toBe(303);
    await vi.advanceTimersByTimeAsync(PING_MS);
    expect(await nextEvent(reader, 'event: signed-out')).toContain('event: signed-out');
    await expect(reader.read()).resolves.toMatchObject({ done: true });
  });
});
