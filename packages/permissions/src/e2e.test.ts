import { MemoryStore, WireError, type AuthInfo, type ExtendedServer, type Store, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  clearSession,
  currentSession,
  getPermissionsSettings,
  negotiateScopes,
  permissionsClient,
  preflight,
  summarize,
} from './client.js';
import { PERMISSIONS_ID } from './index.js';
import { permissionsServer, type PermissionsServerOptions } from './server.js';

const ELEVATION = 'https://auth.example.com/grant';

const SCOPES = [
  { name: 'tickets:read', description: 'read tickets', tools: ['get_ticket'], autoGrant: true },
  { name: 'tickets:delete', description: 'delete tickets', tools: [] },
  { name: 'tickets:comment', description: 'comment on tickets', tools: ['comment'], autoGrant: true },
];

class Fixture {
  runs = 0;
  readonly setup = (server: ExtendedServer): void => {
    const input = z.object({ id: z.string() });
    const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
    server.registerTool('get_ticket', { description: 'Reads a ticket', inputSchema: input }, (args) => {
      this.runs += 1;
      return text(`ticket ${args.id}`);
    });
    server.registerTool(
      'delete_ticket',
      {
        description: 'Deletes a ticket',
        inputSchema: input,
        _meta: { [PERMISSIONS_ID]: { required_scopes: ['tickets:delete'] } },
      },
      (args) => {
        this.runs += 1;
        return text(`deleted ${args.id}`);
      },
    );
    server.registerTool('comment', { description: 'Comments', inputSchema: input }, (args) => {
      this.runs += 1;
      return text(`commented ${args.id}`);
    });
    server.registerTool('ping', { description: 'Needs no scope' }, () => text('pong'));
  };
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly server?: PermissionsServerOptions;
  readonly client?: boolean;
  readonly errors?: boolean;
  readonly authInfo?: AuthInfo;
  readonly store?: Store;
  readonly now?: () => number;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const errors = options.errors ?? true;
  const created = await createTestPair({
    line,
    serverExtensions: [
      errors && errorsServer(),
      permissionsServer({ scopes: SCOPES, elevationUrl: ELEVATION, ...options.server }),
    ],
    clientExtensions: [errors && errorsClient(), options.client !== false && permissionsClient({ now: options.now })],
    setup: fixture.setup,
    serverOptions: { logger: silentLogger, store: options.store },
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

/** A memory store that records every write, to prove that something wrote nothing. */
class WriteRecordingStore extends MemoryStore {
  readonly writes: string[] = [];
  override set(...args: Parameters<MemoryStore['set']>): ReturnType<MemoryStore['set']> {
    this.writes.push(`set ${args[0]}`);
    return super.set(...args);
  }
  override setIfAbsent(...args: Parameters<MemoryStore['setIfAbsent']>): ReturnType<MemoryStore['setIfAbsent']> {
    this.writes.push(`setIfAbsent ${args[0]}`);
    return super.setIfAbsent(...args);
  }
  override compareAndSet(...args: Parameters<MemoryStore['compareAndSet']>): ReturnType<MemoryStore['compareAndSet']> {
    this.writes.push(`compareAndSet ${args[0]}`);
    return super.compareAndSet(...args);
  }
  override delete(...args: Parameters<MemoryStore['delete']>): ReturnType<MemoryStore['delete']> {
    this.writes.push(`delete ${args[0]}`);
    return super.delete(...args);
  }
  override increment(...args: Parameters<MemoryStore['increment']>): ReturnType<MemoryStore['increment']> {
    this.writes.push(`increment ${args[0]}`);
    return super.increment(...args);
  }
  override append(...args: Parameters<MemoryStore['append']>): ReturnType<MemoryStore['append']> {
    this.writes.push(`append ${args[0]}`);
    return super.append(...args);
  }
}

const seeds = seedValidators();
const validCheck = seeds.check('permissions', 'PermissionCheckResponse');
const validNegotiation = seeds.check('permissions', 'ScopeNegotiationResponse');
const validError = seeds.check('error');

describe.each(TEST_LINES)('permissions end to end on %s', (line) => {
  it("PERM-1 PERM-2: advertises the scopes and each tool's required_scopes", async () => {
    const { client } = await pair(line, new Fixture());
    const settings = getPermissionsSettings(client);
    expect(settings).toMatchObject({
      version: '1.0',
      session_ttl_seconds: 900,
      max_session_seconds: 3600,
      elevation_url: ELEVATION,
    });
    expect(settings?.scopes?.map((scope) => scope.name)).toEqual(['tickets:read', 'tickets:delete', 'tickets:comment']);
    const tools = await client.listTools();
    const required = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta?.[PERMISSIONS_ID]]));
    expect(required).toEqual({
      get_ticket: { required_scopes: ['tickets:read'] },
      delete_ticket: { required_scopes: ['tickets:delete'] },
      comment: { required_scopes: ['tickets:comment'] },
      ping: { required_scopes: [] },
    });
  });

  it('PERM-8 PERM-9: refuses a call without its scopes with SCOPE_INSUFFICIENT, before the tool runs', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const result = await client.callTool('delete_ticket', { id: '7' });
    expect(result.isError).toBe(true);
    expect(fixture.runs).toBe(0);
    const error = getStructuredError(result);
    expect(error).toMatchObject({
      code: 'SCOPE_INSUFFICIENT',
      category: 'auth_required',
      details: { missing_scopes: ['tickets:delete'], elevation_url: ELEVATION, tool: 'delete_ticket' },
    });
    expect(validError(error).errors).toBe('');
    expect(textOf(await client.callTool('ping'))).toBe('pong');
  });

  it('PERM-10: OAuth scopes from the transport are the starting grant', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { authInfo: { clientId: 'alice', scopes: ['tickets:delete'] } });
    expect(textOf(await client.callTool('delete_ticket', { id: '7' }))).toBe('deleted 7');
    expect(getStructuredError(await client.callTool('get_ticket', { id: '7' }))?.code).toBe('SCOPE_INSUFFICIENT');
    expect(await preflight(client, 'delete_ticket')).toEqual({ allowed: true });
    const response = await negotiateScopes(client, ['tickets:delete', 'tickets:read']);
    expect(response?.granted_scopes).toEqual(['tickets:delete', 'tickets:read']);
    expect(textOf(await client.callTool('get_ticket', { id: '7' }))).toBe('ticket 7');
  });

  it('PERM-4 PERM-5: check answers without side effects and validates against the seed schema', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const denied = await preflight(client, 'delete_ticket', { id: '7' });
    expect(denied).toMatchObject({ allowed: false, missing_scopes: ['tickets:delete'], elevation_url: ELEVATION });
    expect(validCheck(denied).errors).toBe('');
    expect(await preflight(client, 'ping')).toEqual({ allowed: true });
    const unknown = await preflight(client, 'nope');
    expect(unknown).toMatchObject({ allowed: false });
    expect(validCheck(unknown).errors).toBe('');
    expect(fixture.runs).toBe(0);
  });

  it('PERM-5: a check writes nothing, not even with a live session', async () => {
    const store = new WriteRecordingStore();
    const { client } = await pair(line, new Fixture(), { store });
    await negotiateScopes(client, ['tickets:read']);
    store.writes.length = 0;
    expect(await preflight(client, 'get_ticket', { id: '1' })).toEqual({ allowed: true });
    expect(await preflight(client, 'delete_ticket', { id: '1' })).toMatchObject({ allowed: false });
    expect(store.writes).toEqual([]);
    // The recorder does see writes: a real call refreshes the session.
    expect(textOf(await client.callTool('get_ticket', { id: '1' }))).toBe('ticket 1');
    expect(store.writes.length).toBeGreaterThan(0);
  });

  it('PERM-5: a malformed check is refused as invalid_input naming the field', async () => {
    const { client } = await pair(line, new Fixture());
    const failure = await client
      .request(`${PERMISSIONS_ID}/check`, { tool: 'get_ticket', scopes_held: 'all' })
      .catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    expect((failure as WireError).code).toBe(-32602);
    expect((failure as WireError).data).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'scopes_held' },
    });
  });

  it('PERM-6 PERM-7: negotiate grants auto_grant scopes, denies others with reasons, and the session token lets calls through', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const response = await negotiateScopes(client, ['tickets:read', 'tickets:delete', 'admin:all'], {
      justification: 'triage',
    });
    expect(validNegotiation(response).errors).toBe('');
    expect(response?.granted_scopes).toEqual(['tickets:read']);
    expect(response?.denied_scopes?.map((entry) => entry.scope)).toEqual(['admin:all', 'tickets:delete']);
    expect(response?.denied_scopes?.every((entry) => entry.reason.length > 0)).toBe(true);
    expect(response?.session).toMatchObject({ scopes: ['tickets:read'], inactivity_timeout_seconds: 900 });
    expect(response?.session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(textOf(await client.callTool('get_ticket', { id: '1' }))).toBe('ticket 1');
    expect(getStructuredError(await client.callTool('delete_ticket', { id: '1' }))?.code).toBe('SCOPE_INSUFFICIENT');
    expect(await preflight(client, 'get_ticket')).toEqual({ allowed: true });
    // A later negotiation keeps what the session already held.
    const more = await negotiateScopes(client, ['tickets:comment']);
    expect(more?.granted_scopes).toEqual(['tickets:read', 'tickets:comment']);
    expect(textOf(await client.callTool('comment', { id: '1' }))).toBe('commented 1');
    expect(textOf(await client.callTool('get_ticket', { id: '2' }))).toBe('ticket 2');
  });

  it('PERM-6: a grant policy option decides, and the requested ttl_seconds is capped', async () => {
    const at = Date.parse('2026-01-01T00:00:00Z');
    const { client } = await pair(line, new Fixture(), {
      now: () => at,
      server: {
        now: () => at,
        maxSessionSeconds: 600,
        grant: (requested) => ({
          granted: requested.filter((scope) => scope !== 'tickets:read'),
          denied: [{ scope: 'tickets:read', reason: 'read is off today' }],
        }),
      },
    });
    const response = await negotiateScopes(client, ['tickets:read', 'tickets:delete'], { ttlSeconds: 86_400 });
    expect(response?.granted_scopes).toEqual(['tickets:delete']);
    expect(response?.denied_scopes).toEqual([{ scope: 'tickets:read', reason: 'read is off today' }]);
    expect(response?.session.expires_at).toBe('2026-01-01T00:10:00.000Z');
    expect(textOf(await client.callTool('delete_ticket', { id: '3' }))).toBe('deleted 3');
  });

  it('PERM-11 PERM-12: a session is refreshed by use, expires after inactivity (fake clock), and is capped by expires_at', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const now = (): number => clock;
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      server: { now, sessionTtlSeconds: 60, maxSessionSeconds: 200 },
      now,
    });
    await negotiateScopes(client, ['tickets:read']);
    // Used every 50 s: never idle for 60 s, so the session outlives its inactivity timeout.
    for (let i = 0; i < 2; i += 1) {
      clock += 50_000;
      expect(textOf(await client.callTool('get_ticket', { id: String(i) }))).toBe(`ticket ${String(i)}`);
    }
    // A check is not use: 61 s after the last call the session is gone although a check came 21 s ago.
    clock += 40_000;
    expect(await preflight(client, 'get_ticket')).toEqual({ allowed: true });
    clock += 21_000;
    const idle = await client.callTool('get_ticket', { id: 'y' });
    const error = getStructuredError(idle);
    expect(error).toMatchObject({
      code: 'SESSION_EXPIRED',
      category: 'auth_required',
      details: { missing_scopes: ['tickets:read'] },
    });
    expect(error?.suggestion).toMatch(/negotiate/);
    expect(validError(error).errors).toBe('');
    const check = await preflight(client, 'get_ticket');
    expect(check).toMatchObject({ allowed: false, missing_scopes: ['tickets:read'] });
    expect(check?.reason).toMatch(/expired/);
    clearSession(client);
    expect(currentSession(client)).toBeUndefined();
    expect(getStructuredError(await client.callTool('get_ticket', { id: 'y' }))?.code).toBe('SCOPE_INSUFFICIENT');

    // Past the absolute cap (200 s after negotiation) a session ends even when it was used 51 s before.
    clock = Date.parse('2026-02-01T00:00:00Z');
    await negotiateScopes(client, ['tickets:read']);
    const token = currentSession(client)?.token ?? '';
    for (let i = 0; i < 3; i += 1) {
      clock += 50_000;
      expect(textOf(await client.callTool('get_ticket', { id: String(i) }))).toBe(`ticket ${String(i)}`);
    }
    clock += 51_000;
    expect(currentSession(client)).toBeUndefined();
    const capped = await client.callTool(
      'get_ticket',
      { id: 'z' },
      { meta: { [PERMISSIONS_ID]: { session_token: token } } },
    );
    expect(getStructuredError(capped)?.code).toBe('SESSION_EXPIRED');
  });

  it('PERM-13: a session token is useless to another principal', async () => {
    const store = new MemoryStore();
    const alice = await pair(line, new Fixture(), { store, authInfo: { clientId: 'alice', scopes: [] } });
    const response = await negotiateScopes(alice.client, ['tickets:read']);
    const token = response?.session.token ?? '';
    const bob = await pair(line, new Fixture(), { store, authInfo: { clientId: 'bob', scopes: [] } });
    const stolen = await bob.client.callTool(
      'get_ticket',
      { id: '1' },
      { meta: { [PERMISSIONS_ID]: { session_token: token } } },
    );
    expect(getStructuredError(stolen)?.code).toBe('SESSION_EXPIRED');
    expect(textOf(await alice.client.callTool('get_ticket', { id: '1' }))).toBe('ticket 1');
  });

  it('PERM-3: a malformed session entry is refused as invalid_input naming the field', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const result = await client.callTool(
      'get_ticket',
      { id: '1' },
      { meta: { [PERMISSIONS_ID]: { session_token: 42 } } },
    );
    expect(getStructuredError(result)).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'session_token', pointer: '/_meta/io.github.mcp-ext~1permissions/session_token' },
    });
    expect(fixture.runs).toBe(0);
  });

  it('PERM-15: summarize says what the client can and cannot do', async () => {
    const { client } = await pair(line, new Fixture());
    await negotiateScopes(client, ['tickets:read']);
    const summary = await summarize(client);
    expect(summary?.text).toBe(
      'Can read tickets. Cannot delete tickets (needs tickets:delete) and comment on tickets (needs tickets:comment).',
    );
    expect(summary?.tools).toEqual([
      { name: 'get_ticket', allowed: true, missingScopes: [] },
      { name: 'delete_ticket', allowed: false, missingScopes: ['tickets:delete'] },
      { name: 'comment', allowed: false, missingScopes: ['tickets:comment'] },
    ]);
  });

  it('PERM-14: a client without the extension is still refused, as a plain error without @ext/errors', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, { client: false, errors: false });
    const result = await client.callTool('delete_ticket', { id: '7' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/tickets:delete/);
    expect(result._meta?.['io.github.mcp-ext/errors']).toBeUndefined();
    expect(fixture.runs).toBe(0);
    expect(textOf(await client.callTool('ping'))).toBe('pong');
  });

  it('PERM-18: a plain client (no extensions) is told what a person can do, never the negotiate method', async () => {
    for (const elevationUrl of [ELEVATION, undefined]) {
      const fixture = new Fixture();
      const created = await createTestPair({
        line,
        serverExtensions: [errorsServer(), permissionsServer({ scopes: SCOPES, elevationUrl })],
        setup: fixture.setup,
        serverOptions: { logger: silentLogger },
      });
      open.push(created);
      const result = await created.client.callTool('delete_ticket', { id: '7' });
      expect(result.isError).toBe(true);
      expect(fixture.runs).toBe(0);
      const text = textOf(result);
      expect(text).toContain('Calling delete_ticket needs the scope tickets:delete');
      expect(text).not.toMatch(/negotiate|_meta/);
      expect(text).not.toContain(PERMISSIONS_ID);
      expect(text).toContain('sign in with an account that has it');
      if (elevationUrl === undefined) expect(text).toContain("Ask the server's operator to grant your account");
      else expect(text).toContain(`Have a person grant tickets:delete at ${elevationUrl}`);
    }
  });

  it('PERM-18: the suggestion names the negotiate method only to a client that negotiated the extension', async () => {
    const aware = getStructuredError(
      await (await pair(line, new Fixture())).client.callTool('delete_ticket', { id: '7' }),
    );
    expect(aware?.code).toBe('SCOPE_INSUFFICIENT');
    expect(aware?.suggestion).toBe(
      `Ask for tickets:delete with ${PERMISSIONS_ID}/negotiate or have a person grant it at ${ELEVATION}, then retry.`,
    );
    // Structured errors negotiated, permissions not: the same refusal, without the method it cannot call.
    const errorsOnly = await pair(line, new Fixture(), { client: false });
    const refused = getStructuredError(await errorsOnly.client.callTool('delete_ticket', { id: '7' }));
    expect(refused?.code).toBe('SCOPE_INSUFFICIENT');
    expect(refused?.suggestion).toBe(
      `Have a person grant tickets:delete at ${ELEVATION}, or sign in with an account that has it; then retry.`,
    );
  });

  it('PERM-14: without the client half, refusals still arrive through @ext/errors, and OAuth scopes still count', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      client: false,
      authInfo: { clientId: 'carol', scopes: ['tickets:read'] },
    });
    expect(getStructuredError(await client.callTool('delete_ticket', { id: '7' }))?.code).toBe('SCOPE_INSUFFICIENT');
    expect(textOf(await client.callTool('get_ticket', { id: '7' }))).toBe('ticket 7');
  });

  it('PERM-16: against a server without the extension the client helpers answer undefined and calls are plain', async () => {
    const fixture = new Fixture();
    const created = await createTestPair({
      line,
      serverExtensions: [errorsServer()],
      clientExtensions: [errorsClient(), permissionsClient()],
      setup: fixture.setup,
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
    });
    open.push(created);
    const { client } = created;
    expect(getPermissionsSettings(client)).toBeUndefined();
    expect(await preflight(client, 'delete_ticket')).toBeUndefined();
    expect(await negotiateScopes(client, ['tickets:read'])).toBeUndefined();
    expect(await summarize(client)).toBeUndefined();
    expect(textOf(await client.callTool('delete_ticket', { id: '1' }))).toBe('deleted 1');
  });
});
