import { ConfigurationError, type NegotiatedExtension, type OutgoingCall, type ToolResult } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { createTokenJar, serverKey, sessionStateClient, type SessionStateClientOptions } from './client.js';
import { SESSION_STATE_ID } from './schema.js';

const NOW = 1_800_000_000_000;
const negotiated = (serverName?: string): NegotiatedExtension => ({
  id: SESSION_STATE_ID,
  settings: serverName === undefined ? { version: '1.0' } : { version: '1.0', server_name: serverName },
});
const outgoing = (meta: Record<string, unknown> = {}): OutgoingCall => ({ name: 'tool', arguments: {}, meta });
const withEntry = (entry: unknown, extra: Partial<ToolResult> = {}): ToolResult => ({
  content: [],
  ...extra,
  _meta: { [SESSION_STATE_ID]: entry, ...(extra._meta ?? {}) },
});
const token = (value: string, expiresAt = NOW + 60_000) => ({
  session_state: value,
  expires_at: new Date(expiresAt).toISOString(),
  state_changed: true,
});
const refusal = (): ToolResult => ({
  content: [],
  isError: true,
  _meta: { 'io.github.mcp-ext/errors': { code: 'SESSION_STATE_INVALID', message: 'x', category: 'invalid_input' } },
});

function half(options: SessionStateClientOptions = {}) {
  const jar = createTokenJar();
  const extension = sessionStateClient({ jar, now: () => NOW, ...options });
  // `'none'`: the server did not negotiate the extension.
  const resolve = (outcome: NegotiatedExtension | 'none'): NegotiatedExtension | undefined =>
    outcome === 'none' ? undefined : outcome;
  const prepare = (call: OutgoingCall, outcome: NegotiatedExtension | 'none' = negotiated()) =>
    extension.prepareCall?.(call, resolve(outcome));
  const receive = (
    result: ToolResult,
    call: OutgoingCall = outgoing(),
    outcome: NegotiatedExtension | 'none' = negotiated(),
  ) => {
    extension.onResult?.(result, call, resolve(outcome));
  };
  return { jar, extension, prepare, receive };
}

describe('sessionStateClient options', () => {
  it.each<[unknown, RegExp]>([
    ['jar', /expects an options object/],
    [{ jar: {} }, /jar must have get, set and delete methods/],
    [{ maxTokenBytes: 0 }, /maxTokenBytes must be a positive integer, got 0/],
    [{ now: 'today' }, /now must be a function/],
    [{ store: createTokenJar() }, /unknown option "store"/],
  ])('refuses %j naming the option', (options, message) => {
    let thrown: unknown;
    try {
      sessionStateClient(options as SessionStateClientOptions);
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });

  it('SS-1: advertises the wire version and the largest token it keeps', () => {
    expect(sessionStateClient().settings).toEqual({ version: '1.0', max_token_bytes: 65_536 });
    expect(sessionStateClient({ maxTokenBytes: 1000 }).settings).toEqual({ version: '1.0', max_token_bytes: 1000 });
  });
});

describe('keeping and replaying tokens (SS-2, SS-14)', () => {
  it('SS-14: stores the latest token per server name and replays it', async () => {
    const { jar, prepare, receive } = half();
    receive(withEntry(token('AAAA')), outgoing(), negotiated('files'));
    receive(withEntry(token('BBBB')), outgoing(), negotiated('mail'));
    receive(withEntry(token('CCCC')), outgoing(), negotiated('files'));
    expect(jar.get('files')).toEqual({ token: 'CCCC', expiresAt: NOW + 60_000 });
    const call = outgoing();
    await prepare(call, negotiated('mail'));
    expect(call.meta).toEqual({ [SESSION_STATE_ID]: { session_state: 'BBBB' } });
  });

  it('SS-2: sends nothing when not negotiated, and leaves an entry the caller wrote', async () => {
    const { jar, prepare, receive } = half();
    jar.set('', { token: 'AAAA', expiresAt: NOW + 1 });
    const plain = outgoing();
    await prepare(plain, 'none');
    expect(plain.meta).toEqual({});
    receive(withEntry(token('BBBB')), outgoing(), 'none');
    expect(jar.get('')?.token).toBe('AAAA');
    const own = outgoing({ [SESSION_STATE_ID]: { session_state: 'MINE' } });
    await prepare(own);
    expect(own.meta).toEqual({ [SESSION_STATE_ID]: { session_state: 'MINE' } });
  });

  it('SS-11: drops a token once its expiry passed, without sending it', async () => {
    const { jar, prepare } = half();
    jar.set('', { token: 'AAAA', expiresAt: NOW });
    const call = outgoing();
    await prepare(call);
    expect(call.meta).toEqual({});
    expect(jar.size).toBe(0);
  });

  it('SS-12: does not keep a token larger than its limit, nor an already expired one, and drops the outdated one', () => {
    const { jar, receive } = half({ maxTokenBytes: 8 });
    receive(withEntry(token('AAAA')));
    receive(withEntry(token('A'.repeat(9))));
    expect(jar.size).toBe(0);
    receive(withEntry(token('AAAA')));
    receive(withEntry(token('BBBB', NOW)));
    expect(jar.size).toBe(0);
  });

  it('SS-5: drops the token when told the state changed and no token follows', () => {
    const { jar, receive } = half();
    receive(withEntry(token('AAAA')));
    receive(withEntry({ state_changed: true }));
    expect(jar.size).toBe(0);
  });

  it('ignores malformed entries and results without one', () => {
    const { jar, receive } = half();
    receive(withEntry(token('AAAA')));
    receive(withEntry({ session_state: 'BBBB', state_changed: true }));
    receive(withEntry({ session_state: 7, expires_at: new Date(NOW + 1000).toISOString(), state_changed: true }));
    receive(withEntry('CCCC'));
    receive({ content: [] });
    receive({ content: [], isError: true });
    expect(jar.get('')?.token).toBe('AAAA');
  });
});

describe('refusals (SS-15)', () => {
  it('SS-15: drops the refused token', () => {
    const { jar, receive } = half();
    receive(withEntry(token('AAAA')));
    receive(refusal(), outgoing({ [SESSION_STATE_ID]: { session_state: 'AAAA' } }));
    expect(jar.size).toBe(0);
  });

  it('SS-15: keeps a newer token that a concurrent call stored meanwhile', () => {
    const { jar, receive } = half();
    receive(withEntry(token('NEWER')));
    receive(refusal(), outgoing({ [SESSION_STATE_ID]: { session_state: 'OLDER' } }));
    expect(jar.get('')?.token).toBe('NEWER');
  });

  it('keeps its token when another tool error comes back', () => {
    const { jar, receive } = half();
    receive(withEntry(token('AAAA')));
    const failure: ToolResult = {
      content: [],
      isError: true,
      _meta: { 'io.github.mcp-ext/errors': { code: 'NOT_FOUND' } },
    };
    receive(failure, outgoing({ [SESSION_STATE_ID]: { session_state: 'AAAA' } }));
    expect(jar.get('')?.token).toBe('AAAA');
  });
});

describe('serverKey', () => {
  it('is the advertised server name, or the empty string', () => {
    expect(serverKey({ version: '1.0', server_name: 'files' })).toBe('files');
    expect(serverKey({ version: '1.0' })).toBe('');
    expect(serverKey({ version: '1.0', server_name: 3 })).toBe('');
  });
});
