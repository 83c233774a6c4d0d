/**
 * CORE-32: the legacy-era sessions of both SDK lines' HTTP handlers are
 * bounded in number and forgotten once idle; the options are checked at
 * creation.
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { ConfigurationError } from '../contract/errors.js';
import { INITIALIZE, LEGACY_HEADERS } from './http-test-fixtures.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  isRefusal,
  resolveSessionLimits,
  SessionTable,
  type SessionLimits,
  type SessionReservation,
} from './http-sessions.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler as createHttpHandlerV1, extendServer as extendServerV1 } from '../sdk-v1/index.js';
import { createHttpHandler as createHttpHandlerV2, extendServer as extendServerV2 } from '../sdk-v2/index.js';

const URL_ = 'http://mcp.test/mcp';
type Line = 'v1' | 'v2-legacy';
type Handler = { fetch(request: Request): Promise<Response>; close(): Promise<void> };

const open: Handler[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((handler) => handler.close()));
});

/** `identified`: callers are named by the `x-user` header (else the shared anonymous caller). */
function handlerFor(line: Line, sessions?: SessionLimits, toolMs = 0, identified = false): Handler {
  const composed = composeServer([], { logger: silentLogger });
  const pause = (): Promise<{ content: { type: 'text'; text: string }[] }> =>
    new Promise((resolve) =>
      setTimeout(() => {
        resolve({ content: [{ type: 'text', text: 'done' }] });
      }, toolMs),
    );
  const identify = (request: Request) => request.headers.get('x-user') ?? undefined;
  const options = {
    anonymous: 'shared' as const,
    logger: silentLogger,
    sessions,
    ...(identified ? { identify } : {}),
  };
  const handler =
    line === 'v1'
      ? createHttpHandlerV1(() => {
          const mcp = new McpServerV1({ name: 'sessions-test', version: '0' });
          extendServerV1(mcp, composed).registerTool('pause', {}, pause);
          return mcp;
        }, options)
      : createHttpHandlerV2(() => {
          const mcp = new McpServerV2({ name: 'sessions-test', version: '0' });
          extendServerV2(mcp, composed).registerTool('pause', {}, pause);
          return mcp;
        }, options);
  open.push(handler);
  return handler;
}

function post(body: unknown, session?: string, user?: string): Request {
  const headers: Record<string, string> = { ...LEGACY_HEADERS, ...(user === undefined ? {} : { 'x-user': user }) };
  if (session !== undefined)
    Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
  return new Request(URL_, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** An `initialize` read to its end, as a client reads it: the session id, or the refusal. */
async function initialize(
  handler: Handler,
  user?: string,
): Promise<{ status: number; session: string | null; body: string; retryAfter: string | null }> {
  const response = await handler.fetch(post(INITIALIZE, undefined, user));
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    body: await response.text(),
    retryAfter: response.headers.get('retry-after'),
  };
}

async function listTools(handler: Handler, session: string, user?: string): Promise<number> {
  const response = await handler.fetch(post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session, user));
  await response.text();
  return response.status;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

describe('resolveSessionLimits', () => {
  it('defaults to 1,000 sessions, 100 a caller (never more than max) and 15 minutes idle', () => {
    expect(resolveSessionLimits(undefined, 'h')).toEqual({
      max: DEFAULT_MAX_SESSIONS,
      maxPerPrincipal: DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
      idleTimeoutMs: DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    });
    expect(resolveSessionLimits({ max: 10 }, 'h').maxPerPrincipal).toBe(10);
    expect(() => resolveSessionLimits({ max: 10, maxPerPrincipal: 11 }, 'h')).toThrow(/sessions\.maxPerPrincipal/);
    expect(() => resolveSessionLimits({ maxPerPrincipal: 0 }, 'h')).toThrow(/sessions\.maxPerPrincipal/);
    expect(DEFAULT_MAX_SESSIONS).toBe(1_000);
    expect(DEFAULT_MAX_SESSIONS_PER_PRINCIPAL).toBe(100);
    expect(DEFAULT_SESSION_IDLE_TIMEOUT_MS).toBe(15 * 60 * 1000);
  });

  for (const line of ['v1', 'v2-legacy'] as const) {
    it(`refuses bad values at creation on ${line}, naming the option`, () => {
      for (const [sessions, option] of [
        [{ max: 0 }, 'sessions.max'],
        [{ max: -1 }, 'sessions.max'],
        [{ max: 1.5 }, 'sessions.max'],
        [{ max: Number.NaN }, 'sessions.max'],
        [{ idleTimeoutMs: 0 }, 'sessions.idleTimeoutMs'],
        [{ idleTimeoutMs: Number.POSITIVE_INFINITY }, 'sessions.idleTimeoutMs'],
        [{ idleTimeoutMs: 2 ** 31 }, 'sessions.idleTimeoutMs'],
        ['many' as unknown as SessionLimits, 'sessions must be an object'],
      ] as const) {
        let thrown: unknown;
        try {
          handlerFor(line, sessions);
        } catch (error) {
          thrown = error;
        }
        expect(ConfigurationError.isInstance(thrown)).toBe(true);
        expect((thrown as ConfigurationError).code).toBe('INVALID_OPTION');
        expect((thrown as Error).message).toContain(option);
      }
    });
  }
});

describe.each(['v1', 'v2-legacy'] as const)('legacy-era sessions on %s (CORE-32)', (line) => {
  it('answers an initialize beyond max with 503, JSON-RPC -32000 and Retry-After, and opens again once one is deleted', async () => {
    const handler = handlerFor(line, { max: 2 });
    const first = await initialize(handler);
    const second = await initialize(handler);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await initialize(handler);
    expect(third.status).toBe(503);
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(third.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    // The open sessions still serve.
    expect(await listTools(handler, first.session!)).toBe(200);
    const deleted = await handler.fetch(
      new Request(URL_, {
        method: 'DELETE',
        headers: { 'mcp-session-id': first.session!, 'mcp-protocol-version': '2025-11-25' },
      }),
    );
    expect(deleted.status).toBe(200);
    expect((await initialize(handler)).status).toBe(200);
  });

  it('counts concurrent initializes against max: never more sessions than max', async () => {
    const handler = handlerFor(line, { max: 3 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => initialize(handler)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 503)).toHaveLength(7);
  });

  it('closes and forgets a session idle for idleTimeoutMs; its id is then unknown (404) and its place free', async () => {
    const handler = handlerFor(line, { max: 1, idleTimeoutMs: 100 });
    const { session } = await initialize(handler);
    expect(await listTools(handler, session!)).toBe(200);
    await sleep(400);
    expect(await listTools(handler, session!)).toBe(404);
    expect((await initialize(handler)).status).toBe(200);
  });

  it('never expires a session while one of its requests is in flight', async () => {
    const handler = handlerFor(line, { idleTimeoutMs: 100 }, 400);
    const { session } = await initialize(handler);
    const call = await handler.fetch(
      post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'pause', arguments: {} } }, session!),
    );
    expect(await call.text()).toContain('done');
    expect(await listTools(handler, session!)).toBe(200);
  });
});

describe.each(['v1', 'v2-legacy'] as const)('sessions per caller on %s (CORE-32)', (line) => {
  it('one caller opening sessions without end never locks another out: its own oldest idle ones close instead', async () => {
    // More than the whole table: on a single global pool alice would hold every place, and bob none.
    const handler = handlerFor(line, { max: 200 }, 0, true);
    const alice: string[] = [];
    for (let index = 0; index < 250; index++) {
      const opened = await initialize(handler, 'alice');
      expect(opened.status).toBe(200);
      alice.push(opened.session!);
    }
    const bob = await initialize(handler, 'bob');
    expect(bob.status).toBe(200);
    expect(await listTools(handler, bob.session!, 'bob')).toBe(200);
    // Alice keeps her newest 100 (her share of 200 by default); the 150 she opened first were closed to make room.
    expect(await listTools(handler, alice.at(-1)!, 'alice')).toBe(200);
    expect(await listTools(handler, alice[0]!, 'alice')).toBe(404);
    expect(await listTools(handler, alice[149]!, 'alice')).toBe(404);
    expect(await listTools(handler, alice[150]!, 'alice')).toBe(200);
  });

  it('a caller whose sessions are all busy is answered 429 with a Retry-After; others still get in', async () => {
    const handler = handlerFor(line, { max: 10, maxPerPrincipal: 2, idleTimeoutMs: 30_000 }, 1_000, true);
    const first = await initialize(handler, 'alice');
    const second = await initialize(handler, 'alice');
    const call = (session: string) =>
      handler.fetch(
        post(
          { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'pause', arguments: {} } },
          session,
          'alice',
        ),
      );
    const busy = [call(first.session!), call(second.session!)];
    const refused = await initialize(handler, 'alice');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32000 } });
    expect(Number(refused.retryAfter)).toBe(1);
    expect((await initialize(handler, 'bob')).status).toBe(200);
    await Promise.all((await Promise.all(busy)).map((response) => response.text()));
    // Idle again: the next initialize closes her oldest session instead of refusing.
    expect((await initialize(handler, 'alice')).status).toBe(200);
    expect(await listTools(handler, first.session!, 'alice')).toBe(404);
  });

  it('a full table answers 503 with the time until its first idle session expires, not a made-up minute', async () => {
    const handler = handlerFor(line, { max: 2, idleTimeoutMs: 120_000 }, 0, true);
    expect((await initialize(handler, 'alice')).status).toBe(200);
    expect((await initialize(handler, 'bob')).status).toBe(200);
    const refused = await initialize(handler, 'carol');
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThan(115);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(120);
  });
});

/** A place in `table`, which the test expects to have room. */
function held<S>(table: SessionTable<S>, owner?: string): SessionReservation<S> {
  const reservation = table.reserve(owner);
  if (isRefusal(reservation)) throw new Error(`no place: ${JSON.stringify(reservation)}`);
  return reservation;
}

describe('SessionTable', () => {
  it('arms idle timers that do not keep the process alive', () => {
    const timers: NodeJS.Timeout[] = [];
    const real = globalThis.setTimeout;
    const spy = (callback: () => void, ms?: number): NodeJS.Timeout => {
      const timer = real(callback, ms);
      timers.push(timer);
      return timer;
    };
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(spy);
    const expired: string[] = [];
    const table = new SessionTable<string>({ max: 2, idleTimeoutMs: 60_000 }, (session) => expired.push(session));
    held(table).open('a', 'session a');
    table.leave('a');
    expect(timers).toHaveLength(1);
    expect(timers[0]?.hasRef()).toBe(false);
    table.clear();
    expect(expired).toEqual([]);
  });

  it('expires only idle sessions, after the timeout', () => {
    vi.useFakeTimers();
    try {
      const expired: string[] = [];
      const table = new SessionTable<string>({ max: 5, idleTimeoutMs: 1_000 }, (session) => expired.push(session));
      held(table).open('idle', 'idle');
      held(table).open('busy', 'busy');
      table.leave('idle');
      vi.advanceTimersByTime(999);
      expect(expired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(expired).toEqual(['idle']);
      expect(table.get('idle')).toBeUndefined();
      vi.advanceTimersByTime(10_000);
      expect(table.get('busy')).toBe('busy');
      // A request resets the clock.
      table.leave('busy');
      vi.advanceTimersByTime(900);
      table.enter('busy');
      table.leave('busy');
      vi.advanceTimersByTime(900);
      expect(table.get('busy')).toBe('busy');
      vi.advanceTimersByTime(100);
      expect(expired).toEqual(['idle', 'busy']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts an identified caller against its own share, and the shared anonymous caller against the table only', () => {
    const expired: string[] = [];
    const table = new SessionTable<string>({ max: 4, maxPerPrincipal: 2, idleTimeoutMs: 60_000 }, (session) =>
      expired.push(session),
    );
    held(table, 'alice').open('a1', 'a1');
    held(table, 'alice').open('a2', 'a2');
    // Both busy (their opening requests in flight): no room for a third of hers.
    expect(table.reserve('alice')).toMatchObject({ refused: 'caller', retryAfterSeconds: 1 });
    table.leave('a2');
    table.leave('a1');
    held(table, 'alice').open('a3', 'a3');
    expect(expired).toEqual(['a2']);
    held(table).open('n1', 'n1');
    held(table).open('n2', 'n2');
    table.leave('n1');
    // Full: the anonymous caller may not take an idle session of anyone's; alice may take her own.
    expect(table.reserve()).toMatchObject({ refused: 'full' });
    held(table, 'alice');
    expect(expired).toEqual(['a2', 'a1']);
  });

  it('holds places for sessions being opened and gives back the ones never opened', () => {
    const table = new SessionTable<string>({ max: 2, idleTimeoutMs: 1_000 }, () => undefined);
    const first = held(table);
    const second = held(table);
    expect(table.reserve()).toMatchObject({ refused: 'full' });
    second.release();
    second.release();
    first.open('a', 'a');
    first.release();
    expect(table.size).toBe(1);
    expect(isRefusal(table.reserve())).toBe(false);
    expect(isRefusal(table.reserve())).toBe(true);
  });
});
