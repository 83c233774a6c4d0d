/**
 * The tracker on the v1 SDK over Streamable HTTP (`startHttpServer({ sdk:
 * 'v1' })`), through a real client on the 2025 era: the same tools and
 * extensions as the v2 server, sessions, the Host check, an export that
 * streams, and a destructive call held for confirmation.
 */
import { silentLogger } from '@ext/core/kit';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { costClient, getCostInfo } from '@ext/cost/client';
import { getStructuredError } from '@ext/errors/client';
import { streamCall, streamingClient } from '@ext/streaming/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSdk } from '../server/cli-args.js';
import { connect, type Connection } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { TRACKER_EXTENSIONS, TRACKER_TOOLS } from './test-support.js';

describe('resolveSdk', () => {
  it('reads --sdk v1|v2 in either form, defaulting to v2, and refuses anything else', () => {
    expect(resolveSdk([])).toBe('v2');
    expect(resolveSdk(['--sdk', 'v1'])).toBe('v1');
    expect(resolveSdk(['--port', '1', '--sdk=v2'])).toBe('v2');
    expect(() => resolveSdk(['--sdk', 'v3'])).toThrow(/--sdk must be v1 or v2/);
    expect(() => resolveSdk(['--sdk'])).toThrow(RangeError);
  });
});

describe('the tracker on SDK v1 over Streamable HTTP', () => {
  let running: RunningHttpServer;
  let connection: Connection;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0, sdk: 'v1', logger: silentLogger });
    connection = await connect(running.as(), {
      era: 'legacy',
      extensions: [confirmationClient(), streamingClient(), costClient()],
    });
  });

  afterAll(async () => {
    await connection.close();
    await running.close();
  });

  it('negotiates every extension and lists every tool in a session', () => {
    const client = connection.extended!;
    expect(client.sdk).toBe('v2');
    expect(client.era).toBe('legacy');
    expect(Object.keys(client.serverExtensions()).sort()).toEqual(TRACKER_EXTENSIONS);
    expect(connection.wire.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists the same tools as the v2 server', async () => {
    const tools = await connection.extended!.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TRACKER_TOOLS);
  });

  it('answers a request for an unknown session with 404 and a foreign Host with 403', async () => {
    const unknown = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
        authorization: `Bearer ${running.tokens!.alice}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(unknown.status).toBe(404);
    const foreign = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
      },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
  });

  it("refuses a caller without a token with the SDK's 401 challenge, and hides alice's session from bob", async () => {
    const anonymous = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const asBob = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': connection.wire.sessionId!,
        authorization: `Bearer ${running.tokens!.bob}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(asBob.status).toBe(404);
  });

  it('streams an export and meters it, as on v2', async () => {
    const client = connection.extended!;
    for (const title of ['One', 'Two', 'Three']) await client.callTool('create_ticket', { title });
    const kinds: string[] = [];
    let last: unknown;
    for await (const update of streamCall(client, 'export_report', { status: 'open' })) {
      kinds.push(update.type);
      if (update.type === 'result') last = update.result;
    }
    expect(kinds.filter((kind) => kind === 'stream_chunk')).toHaveLength(4);
    expect(kinds.filter((kind) => kind === 'progress').length).toBeGreaterThanOrEqual(3);
    expect(getCostInfo(last)).toMatchObject({ units_used: 1, quota: { used: 1 } });
  });

  it('holds a destructive call until a person approves it', async () => {
    const client = connection.extended!;
    const created = await client.callTool('create_ticket', { title: 'Obsolete' });
    const id = (created.structuredContent?.ticket as { id: string }).id;
    const declined = await callWithConfirmation(
      client,
      'delete_ticket',
      { id },
      { confirm: () => Promise.resolve(false) },
    );
    expect(declined.isError).toBe(true);
    expect((await client.callTool('get_ticket', { id })).isError).not.toBe(true);
    const approved = await callWithConfirmation(
      client,
      'delete_ticket',
      { id },
      { confirm: () => Promise.resolve(true) },
    );
    expect(approved.isError).not.toBe(true);
    expect(getStructuredError(await client.callTool('get_ticket', { id }))).toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
  });
});
