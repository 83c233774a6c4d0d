import { afterEach, describe, expect, it } from 'vitest';
import { rawClient, rawPoll, serveTasks, type Served } from './test-support.js';

// Written out rather than imported: this client knows the wire, not this package.
const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARES_TASKS = { extensions: { [TASKS]: {} } };
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(): Promise<string> {
  const served = await serveTasks(undefined, { pollIntervalMs: 100 });
  servers.push(served);
  return served.url;
}

describe('a raw 2026-07-28 client, fetch only, speaking Tasks as SEP-2663 says', () => {
  it('TASK-1 TASK-3 TASK-6: discovers the extension, gets a CreateTaskResult, polls at pollIntervalMs to the result', async () => {
    const client = rawClient(await serve(), { headers: { 'x-user': 'alice' }, capabilities: DECLARES_TASKS });
    const discovered = await client.request('server/discover');
    // TASK-1: the empty object the extension defines; the package's own identifier keeps its versioned settings.
    expect(discovered.capabilities).toMatchObject({
      extensions: { [TASKS]: {}, 'io.github.mcp-ext/tasks': { version: '1.0' } },
    });
    expect((discovered.capabilities as { extensions: Record<string, unknown> }).extensions[TASKS]).toEqual({});

    const created = await client.request('tools/call', { name: 'slow_compute', arguments: { ms: 300 } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 100 });
    expect(created.taskId).toEqual(expect.any(String));
    expect(created.createdAt).toMatch(ISO_8601);
    expect(created.lastUpdatedAt).toMatch(ISO_8601);
    for (const field of ['task', 'result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval']) {
      expect(created).not.toHaveProperty(field);
    }

    const answers = await rawPoll(client, created);
    const done = answers.at(-1);
    expect(done).toMatchObject({
      resultType: 'complete',
      taskId: created.taskId,
      status: 'completed',
      createdAt: created.createdAt,
      ttlMs: 3_600_000,
      pollIntervalMs: 100,
      // TASK-6: the CallToolResult as a 2026-07-28 server answers it, resultType included.
      result: { resultType: 'complete', content: [{ type: 'text', text: 'computed in 300 ms' }] },
    });
    for (const before of answers.slice(0, -1)) {
      expect(before).toMatchObject({ status: 'working', pollIntervalMs: 100 });
      expect(before).not.toHaveProperty('result');
    }
  });

  it('TASK-1: the same client gets the result synchronously unless the request declares the extension', async () => {
    const url = await serve();
    const client = rawClient(url, { headers: { 'x-user': 'alice' } });
    const call = { name: 'slow_compute', arguments: { ms: 50 } };
    const answer = await client.request('tools/call', call);
    expect(answer).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'computed in 50 ms' }] });
    expect(answer).not.toHaveProperty('taskId');

    const declared = { ...call, _meta: { 'io.modelcontextprotocol/clientCapabilities': DECLARES_TASKS } };
    const created = await client.request('tools/call', declared);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const declaring = rawClient(url, { headers: { 'x-user': 'alice' }, capabilities: DECLARES_TASKS });
    expect((await rawPoll(declaring, created)).at(-1)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'computed in 50 ms' }] },
    });
  });
});
