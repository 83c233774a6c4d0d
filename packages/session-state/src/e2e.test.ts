import { silentLogger } from '@ext/core/kit';
import { type AuthInfo, type ExtendedServer, type ServerExtension, type ToolResult } from '@ext/core';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createTokenJar, getSessionStateMeta, sessionStateClient, type SessionStateClientOptions } from './client.js';
import { getSessionStateSettings, SESSION_STATE_ID } from './index.js';
import { RETRY_WITHOUT_TOKEN_SUGGESTION } from './logic.js';
import { inspectToken } from './token.js';
import { sessionState, sessionStateServer, type SessionStateServerOptions } from './server.js';

const K1 = { id: 'k1', secret: 'first-secret-of-at-least-thirty-two-bytes' };
const K2 = { id: 'k2', secret: 'second-secret-of-at-least-thirty-two-bytes' };
const FAR = Date.now() + 365 * 86_400_000;
const seeds = seedValidators();

/** The tools of the fixture server, and what reached their handlers. */
class Fixture {
  handlerRuns = 0;
  /** `params._meta` of every call, as the server received it (before any stage could refuse it). */
  readonly received: Record<string, unknown>[] = [];

  /** Records what arrives, through the core's `beginCall` hook. */
  readonly spy: ServerExtension = {
    side: 'server',
    name: '@test/spy',
    ids: ['io.github.mcp-ext/test-spy'],
    settings: { version: '1.0' },
    beginCall: (call) => {
      this.received.push({ ...call.meta });
    },
  };

  /** The token the server received with the last call, if any. */
  lastToken(): unknown {
    const entry = this.received.at(-1)?.[SESSION_STATE_ID] as Record<string, unknown> | undefined;
    return entry?.session_state;
  }

  readonly setup = (server: ExtendedServer): void => {
    const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
    server.registerTool('counter', { description: 'Counts calls in session state' }, (_args, ctx) => {
      this.handlerRuns += 1;
      const state = sessionState<{ count: number }>(ctx);
      const count = (state.get()?.count ?? 0) + 1;
      state.set({ count });
      return text(String(count));
    });
    server.registerTool('peek', { description: 'Reads the state without changing it' }, (_args, ctx) => {
      this.handlerRuns += 1;
      const state = sessionState(ctx);
      return text(JSON.stringify({ enabled: state.enabled, state: state.get() ?? null }));
    });
    server.registerTool('forget', { description: 'Drops the state' }, (_args, ctx) => {
      sessionState(ctx).clear();
      return text('forgotten');
    });
    server.registerTool(
      'hoard',
      { description: 'Stores a string of the given length', inputSchema: z.object({ bytes: z.number() }) },
      (args, ctx) => {
        sessionState(ctx).set('x'.repeat(args.bytes));
        return text('stored');
      },
    );
    server.registerTool('set_then_throw', { description: 'Sets state, then fails' }, (_args, ctx) => {
      sessionState(ctx).set({ count: 999 });
      throw new Error('downstream failed');
    });
    server.registerTool('set_then_error_result', { description: 'Sets state, then reports an error' }, (_args, ctx) => {
      sessionState(ctx).set({ count: 500 });
      return { ...text('partly done'), isError: true };
    });
    server.registerTool('forge', { description: 'Writes the extension key itself' }, () => ({
      ...text('forged'),
      _meta: {
        [SESSION_STATE_ID]: { session_state: 'forged', expires_at: '2099-01-01T00:00:00Z', state_changed: true },
      },
    }));
  };
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly server?: Partial<SessionStateServerOptions> | false;
  readonly client?: SessionStateClientOptions | false;
  readonly errors?: boolean;
  /** Whether the client composes `errorsClient` (default: as `errors`). */
  readonly clientErrors?: boolean;
  readonly authInfo?: AuthInfo;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const errors = options.errors ?? true;
  const created = await createTestPair({
    line,
    serverExtensions: [
      errors && errorsServer(),
      options.server !== false && sessionStateServer({ keys: [K1], ...(options.server ?? {}) }),
      fixture.spy,
    ],
    clientExtensions: [
      (options.clientErrors ?? errors) && errorsClient(),
      options.client !== false && sessionStateClient(options.client ?? {}),
    ],
    setup: fixture.setup,
    serverOptions: { logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: options.authInfo,
  });
  open.push(created);
  return created;
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

const ALICE: AuthInfo = { clientId: 'alice' };
const BOB: AuthInfo = { clientId: 'bob' };

/** A token's raw bytes changed and re-encoded. */
function rewrite(token: string, edit: (bytes: Buffer) => void): string {
  const bytes = Buffer.from(token, 'base64url');
  edit(bytes);
  return bytes.toString('base64url');
}

describe.each(TEST_LINES)('session state end to end on %s', (line) => {
  it('SS-1: advertises its settings on both sides', async () => {
    const { client } = await pair(line, new Fixture(), { server: { serverName: 'files', ttlSeconds: 600 } });
    expect(getSessionStateSettings(client.serverExtensions())).toEqual({
      version: '1.0',
      ttl_seconds: 600,
      max_token_bytes: 65_536,
      server_name: 'files',
    });
    expect(client.negotiated(SESSION_STATE_ID)?.id).toBe(SESSION_STATE_ID);
  });

  it('SS-2 SS-4 SS-14: the client keeps the token and replays it; the handler sees its state', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const { client } = await pair(line, fixture, { client: { jar } });
    const first = await client.callTool('counter');
    expect(textOf(first)).toBe('1');
    expect(fixture.lastToken()).toBeUndefined();
    const meta = getSessionStateMeta(first);
    expect(meta?.state_changed).toBe(true);
    expect(typeof meta?.session_state).toBe('string');
    expect(Date.parse(meta?.expires_at ?? '')).toBeGreaterThan(Date.now());
    // The expiry on the wire is the one sealed in the token.
    expect(inspectToken(meta?.session_state)?.expiresAt).toBe(Date.parse(meta?.expires_at ?? ''));
    expect(seeds.check('session-state', 'StateUpdateResponse')({ result: first, ...meta }).errors).toBe('');
    expect(jar.get('')?.token).toBe(meta?.session_state);

    expect(textOf(await client.callTool('counter'))).toBe('2');
    expect(fixture.lastToken()).toBe(meta?.session_state);
    const request = fixture.received.at(-1)?.[SESSION_STATE_ID] as Record<string, unknown>;
    expect(
      seeds.check('session-state', 'StateUpdateRequest')({ tool: 'counter', parameters: {}, ...request }).errors,
    ).toBe('');
    expect(textOf(await client.callTool('counter'))).toBe('3');
    expect(textOf(await client.callTool('peek'))).toBe('{"enabled":true,"state":{"count":3}}');
  });

  it('SS-3: a call that neither sets nor clears state gets no entry, and the client keeps its token', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const { client } = await pair(line, fixture, { client: { jar } });
    const fresh = await client.callTool('peek');
    expect(fresh._meta?.[SESSION_STATE_ID]).toBeUndefined();
    expect(jar.size).toBe(0);
    await client.callTool('counter');
    const token = jar.get('')?.token;
    const unchanged = await client.callTool('peek');
    expect(unchanged._meta?.[SESSION_STATE_ID]).toBeUndefined();
    expect(jar.get('')?.token).toBe(token);
  });

  it('SS-5: clearing the state tells the client to drop its token', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const { client } = await pair(line, fixture, { client: { jar } });
    await client.callTool('counter');
    await client.callTool('counter');
    const cleared = await client.callTool('forget');
    expect(cleared._meta?.[SESSION_STATE_ID]).toEqual({ state_changed: true });
    expect(seeds.check('session-state', 'StateUpdateResponse')({ result: cleared, state_changed: true }).valid).toBe(
      true,
    );
    expect(jar.size).toBe(0);
    expect(textOf(await client.callTool('counter'))).toBe('1');
    expect(fixture.lastToken()).toBeUndefined();
  });

  it('SS-13: a handler that throws keeps nothing; one that returns an error result keeps what it set', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    await client.callTool('counter');
    const failed = await client.callTool('set_then_throw');
    expect(failed.isError).toBe(true);
    expect(failed._meta?.[SESSION_STATE_ID]).toBeUndefined();
    expect(textOf(await client.callTool('counter'))).toBe('2');
    const reported = await client.callTool('set_then_error_result');
    expect(reported.isError).toBe(true);
    expect(getSessionStateMeta(reported)?.state_changed).toBe(true);
    expect(textOf(await client.callTool('counter'))).toBe('501');
  });

  it('SS-12: set() beyond the limit fails the call with an error naming the limit; the old state stays', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { server: { maxTokenBytes: 4096 } });
    await client.callTool('counter');
    expect((await client.callTool('hoard', { bytes: 1000 })).isError).toBeUndefined();
    const refused = await client.callTool('hoard', { bytes: 5000 });
    expect(refused.isError).toBe(true);
    const error = getStructuredError(refused);
    expect(error).toMatchObject({
      code: 'SESSION_STATE_TOO_LARGE',
      category: 'permanent',
      details: { limit_bytes: 4096 },
    });
    expect(error?.message).toContain('the limit is 4096 bytes');
    expect(seeds.check('error')(error).errors).toBe('');
    expect(textOf(await client.callTool('peek'))).toBe(`{"enabled":true,"state":"${'x'.repeat(1000)}"}`);
  });

  it('SS-12: the server honours the smaller limit a client advertises', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: { maxTokenBytes: 1024 } });
    expect(getStructuredError(await client.callTool('hoard', { bytes: 2000 }))).toMatchObject({
      code: 'SESSION_STATE_TOO_LARGE',
      details: { limit_bytes: 1024 },
    });
  });

  it('SS-17: a handler cannot forge the extension entry', async () => {
    const { client } = await pair(line, new Fixture());
    const result = await client.callTool('forge');
    expect(result._meta?.[SESSION_STATE_ID]).toBeUndefined();
  });

  it('SS-16: with rolling, a call that keeps the state gets a fresh expiry', async () => {
    let now = Date.now();
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { server: { rolling: true, now: () => now } });
    const first = getSessionStateMeta(await client.callTool('counter'));
    now += 60_000;
    const renewed = getSessionStateMeta(await client.callTool('peek'));
    expect(renewed?.state_changed).toBe(false);
    expect(Date.parse(renewed?.expires_at ?? '')).toBe(Date.parse(first?.expires_at ?? '') + 60_000);
    expect(textOf(await client.callTool('counter'))).toBe('2');
  });

  it('SS-10: after a restart with a new first key, old tokens still open and new ones use the new key', async () => {
    const jar = createTokenJar();
    const fixture = new Fixture();
    const before = await pair(line, fixture, { client: { jar }, authInfo: ALICE });
    await before.client.callTool('counter');
    const oldToken = jar.get('')?.token;
    expect(inspectToken(oldToken)?.keyId).toBe('k1');
    await before.close();

    const rotated = await pair(line, fixture, { client: { jar }, server: { keys: [K2, K1] }, authInfo: ALICE });
    expect(textOf(await rotated.client.callTool('counter'))).toBe('2');
    expect(inspectToken(jar.get('')?.token)?.keyId).toBe('k2');
    await rotated.close();

    // Once k1 is retired, a token it sealed is refused as sealed with an unknown key.
    jar.set('', { token: oldToken ?? '', expiresAt: FAR });
    const retired = await pair(line, fixture, { client: { jar }, server: { keys: [K2] }, authInfo: ALICE });
    const refused = await retired.client.callTool('counter');
    expect(getStructuredError(refused)).toMatchObject({
      code: 'SESSION_STATE_INVALID',
      details: { reason: 'unknown_key' },
    });
  });

  describe('SS-8 SS-9 SS-15: every bad token is refused before the handler, and the client recovers', () => {
    interface BadTokenCase {
      readonly name: string;
      readonly reason: string;
      /** Turns a genuine token (sealed by k1 for the default caller) into the bad one. */
      readonly token: (genuine: string) => string;
      readonly server?: Partial<SessionStateServerOptions>;
      /** Where the client keeps tokens for the refusing server (its `server_name`). */
      readonly jarKey?: string;
    }
    const cases: BadTokenCase[] = [
      {
        name: 'tampered',
        reason: 'not_authentic',
        token: (genuine) =>
          rewrite(genuine, (bytes) => {
            bytes[bytes.length - 20]! ^= 0x01;
          }),
      },
      { name: 'truncated', reason: 'malformed', token: (genuine) => genuine.slice(0, 30) },
      { name: 'cut short by three bytes', reason: 'not_authentic', token: (genuine) => genuine.slice(0, -4) },
      {
        name: 'expired',
        reason: 'expired',
        token: (genuine) => genuine,
        server: { now: () => Date.now() + 2 * 3_600_000 },
      },
      { name: 'sealed with a foreign key', reason: 'unknown_key', token: (genuine) => genuine, server: { keys: [K2] } },
      {
        name: 'sealed for another server name',
        reason: 'not_authentic',
        token: (genuine) => genuine,
        server: { serverName: 'elsewhere' },
        jarKey: 'elsewhere',
      },
      { name: 'oversize', reason: 'too_large', token: () => 'A'.repeat(70_000) },
      {
        name: 'of another format version',
        reason: 'unsupported_version',
        token: (genuine) => rewrite(genuine, (bytes) => bytes.writeUInt8(9, 0)),
      },
      { name: 'garbage', reason: 'malformed', token: () => 'not a token!' },
      { name: 'too short to be a token', reason: 'malformed', token: () => 'AQID' },
      { name: 'random base64url', reason: 'unsupported_version', token: () => 'bm90LWEtdG9rZW4' },
    ];

    it.each(cases)('$name', async (bad) => {
      const fixture = new Fixture();
      const jar = createTokenJar();
      const minting = await pair(line, fixture, { client: { jar }, authInfo: ALICE });
      await minting.client.callTool('counter');
      const genuine = jar.get('')?.token ?? '';
      await minting.close();

      const badToken = bad.token(genuine);
      jar.delete('');
      jar.set(bad.jarKey ?? '', { token: badToken, expiresAt: FAR });
      const runs = fixture.handlerRuns;
      const { client } = await pair(line, fixture, { client: { jar }, server: bad.server, authInfo: ALICE });
      const refused = await client.callTool('counter');
      expect(fixture.lastToken()).toBe(badToken);
      expect(refused.isError).toBe(true);
      expect(fixture.handlerRuns).toBe(runs);
      const error = getStructuredError(refused);
      expect(error).toMatchObject({
        code: 'SESSION_STATE_INVALID',
        category: 'invalid_input',
        suggestion: RETRY_WITHOUT_TOKEN_SUGGESTION,
        details: {
          reason: bad.reason,
          field: 'session_state',
          pointer: '/_meta/io.github.mcp-ext~1session-state/session_state',
        },
      });
      expect(seeds.check('error')(error).errors).toBe('');
      // The client dropped the refused token; the retry goes without one and starts afresh.
      expect(jar.size).toBe(0);
      expect(textOf(await client.callTool('counter'))).toBe('1');
      expect(fixture.lastToken()).toBeUndefined();
    });

    it('a malformed entry is refused naming the field', async () => {
      const fixture = new Fixture();
      const { client } = await pair(line, fixture);
      const refused = await client.callTool('counter', {}, { meta: { [SESSION_STATE_ID]: { session_state: 42 } } });
      expect(getStructuredError(refused)).toMatchObject({
        code: 'SESSION_STATE_INVALID',
        details: {
          reason: 'malformed',
          field: 'session_state',
          pointer: '/_meta/io.github.mcp-ext~1session-state/session_state',
        },
      });
      const notAnObject = await client.callTool('counter', {}, { meta: { [SESSION_STATE_ID]: 'token' } });
      expect(getStructuredError(notAnObject)).toMatchObject({
        details: { field: SESSION_STATE_ID, pointer: '/_meta/io.github.mcp-ext~1session-state' },
      });
      expect(fixture.handlerRuns).toBe(0);
    });
  });

  it('SS-7: a token minted for one caller does not open for another', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const alice = await pair(line, fixture, { client: { jar }, authInfo: ALICE });
    await alice.client.callTool('counter');
    await alice.client.callTool('counter');
    const aliceToken = jar.get('')?.token;
    const bob = await pair(line, fixture, { client: { jar }, authInfo: BOB });
    const refused = await bob.client.callTool('peek');
    expect(getStructuredError(refused)).toMatchObject({
      code: 'SESSION_STATE_INVALID',
      details: { reason: 'not_authentic' },
    });
    jar.set('', { token: aliceToken ?? '', expiresAt: FAR });
    expect(textOf(await alice.client.callTool('counter'))).toBe('3');
  });

  it('SS-14: a client keeps one token per server name', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const files = await pair(line, fixture, { client: { jar }, server: { serverName: 'files' }, authInfo: ALICE });
    const mail = await pair(line, fixture, { client: { jar }, server: { serverName: 'mail' }, authInfo: ALICE });
    await files.client.callTool('counter');
    await files.client.callTool('counter');
    await mail.client.callTool('counter');
    expect(jar.size).toBe(2);
    expect(textOf(await files.client.callTool('counter'))).toBe('3');
    expect(textOf(await mail.client.callTool('counter'))).toBe('2');
  });

  it('SS-11: the client neither sends nor keeps an expired token', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const { client } = await pair(line, fixture, { client: { jar } });
    await client.callTool('counter');
    jar.set('', { token: jar.get('')?.token ?? '', expiresAt: Date.now() - 1 });
    expect(textOf(await client.callTool('counter'))).toBe('1');
    expect(fixture.lastToken()).toBeUndefined();
  });

  it('SS-3: a client without the extension never sends a token and gets none; the state is simply not kept', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: false });
    const first = await client.callTool('counter');
    expect(textOf(first)).toBe('1');
    expect(first._meta?.[SESSION_STATE_ID]).toBeUndefined();
    expect(textOf(await client.callTool('counter'))).toBe('1');
    expect(fixture.received.every((meta) => !(SESSION_STATE_ID in meta))).toBe(true);
    expect(textOf(await client.callTool('peek'))).toBe('{"enabled":false,"state":null}');
    // An entry sent without negotiating is ignored, not refused.
    const ignored = await client.callTool(
      'counter',
      {},
      { meta: { [SESSION_STATE_ID]: { session_state: 'whatever' } } },
    );
    expect(textOf(ignored)).toBe('1');
  });

  it('SS-2: a client never sends a token to a server without the extension', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    jar.set('', { token: 'c3RhbGU', expiresAt: FAR });
    const { client } = await pair(line, fixture, { server: false, client: { jar } });
    expect(getSessionStateSettings(client.serverExtensions())).toBeUndefined();
    const result = await client.callTool('counter');
    // The handler needs the server half; without it the call fails on the server, with nothing sent.
    expect(result.isError).toBe(true);
    expect(fixture.received[0]).not.toHaveProperty(SESSION_STATE_ID);
    expect(jar.get('')?.token).toBe('c3RhbGU');
  });

  it.each([
    { setup: 'neither side composes @ext/errors', errors: false, clientErrors: false },
    { setup: 'only the server composes @ext/errors', errors: true, clientErrors: false },
  ])(
    'SS-8 SS-15: when $setup, the refusal is a plain tool error that still tells the client to drop its token',
    async (setup) => {
      const fixture = new Fixture();
      const jar = createTokenJar();
      jar.set('', { token: 'AQID', expiresAt: FAR });
      const { client } = await pair(line, fixture, {
        errors: setup.errors,
        clientErrors: setup.clientErrors,
        client: { jar },
      });
      const refused = await client.callTool('counter');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(`The session_state token is malformed\n${RETRY_WITHOUT_TOKEN_SUGGESTION}`);
      expect(refused._meta?.[SESSION_STATE_ID]).toEqual({ state_changed: true });
      expect(getStructuredError(refused)).toBeUndefined();
      expect(fixture.handlerRuns).toBe(0);
      expect(jar.size).toBe(0);
      expect(textOf(await client.callTool('counter'))).toBe('1');
    },
  );
});

describe('SS-7 across sessions of the legacy era', () => {
  it('binds tokens to the principal, not the transport session: another caller starts afresh after one refusal', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const first = await pair('v2-legacy', fixture, { client: { jar }, authInfo: ALICE });
    await first.client.callTool('counter');
    const again = await pair('v2-legacy', fixture, { client: { jar }, authInfo: ALICE });
    expect(textOf(await again.client.callTool('counter'))).toBe('2');
    const other = await pair('v2-legacy', fixture, { client: { jar }, authInfo: BOB });
    expect(getStructuredError(await other.client.callTool('counter'))).toMatchObject({
      details: { reason: 'not_authentic' },
    });
    expect(textOf(await other.client.callTool('counter'))).toBe('1');
  });

  it('keeps state across sessions when the server binds to another subject', async () => {
    const fixture = new Fixture();
    const jar = createTokenJar();
    const subject = (): string => 'the-one-user';
    const first = await pair('v2-legacy', fixture, { client: { jar }, server: { subject } });
    await first.client.callTool('counter');
    const second = await pair('v2-legacy', fixture, { client: { jar }, server: { subject } });
    expect(textOf(await second.client.callTool('counter'))).toBe('2');
  });
});
