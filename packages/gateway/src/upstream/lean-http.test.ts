// The lean tools/call path against the SDK client it stands in for: the same calls through both give the same results, errors and notifications, against real servers over real HTTP (the npm stdio servers behind a 2026-07-28 front, the SDK v2 test upstream, a scripted one for what servers rarely send).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExtensionError } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpUpstream } from '../config/schema.js';
import { connectUpstream } from './connection.js';
import { classifyFault } from './faults.js';
import { leanCallerFor, type LeanCallParams, type LeanHttpCaller } from './lean-http.js';
import {
  event,
  resultFor,
  scriptedUpstream,
  stdioBehindHttp,
  type Front,
  type ScriptedUpstream,
} from './testing/lean-fronts.js';
import { serveV2, type V2Upstream } from './testing/servers.js';
import { toUpstreamTool } from './tool-list.js';
import { createUpstreamClient, createUpstreamTransport } from './transport.js';
import type { UpstreamTool } from './types.js';

const clientInfo = { name: 'gateway-test', version: '0.0.0' };
/** Generous: only the calls that are meant to time out wait for it. */
const TIMEOUT_MS = 30_000;
/** Starting an npm server over stdio takes a while on a loaded machine. */
const STARTING_MS = 120_000;

/** The SDK client the gateway connects with, and the lean caller beside it, on one upstream. */
interface Pair {
  readonly client: Client;
  readonly lean: LeanHttpCaller;
  readonly tools: readonly UpstreamTool[];
  /** Tool-list changes each path was told of. */
  readonly changes: { sdk: number; lean: number };
  close(): Promise<void>;
}

async function pairOn(url: string): Promise<Pair> {
  const upstream: HttpUpstream = { url, protocol: '2026-07-28' };
  const changes = { sdk: 0, lean: 0 };
  const link = createUpstreamTransport('differential', upstream, silentLogger);
  const client = createUpstreamClient(upstream, clientInfo, () => {
    changes.sdk += 1;
  });
  await client.connect(link.transport);
  const lean = leanCallerFor(upstream, client, clientInfo, () => {
    changes.lean += 1;
  });
  if (lean === undefined) throw new Error('expected a lean caller for a 2026-07-28 HTTP upstream');
  const { tools } = await client.listTools();
  return {
    client,
    lean,
    tools: tools.map(toUpstreamTool),
    changes,
    async close() {
      await client.close();
      link.dispose();
      lean.close();
    },
  };
}

/** An error as the rest of the gateway sees it: its class, fields, and what `classifyFault` makes of it. */
function described(error: unknown): Record<string, unknown> {
  const fault = classifyFault(error, { upstream: 'differential', operation: 'tools/call', timeoutMs: TIMEOUT_MS });
  const fields = error as { code?: unknown; data?: unknown; message?: unknown; cause?: { code?: unknown } };
  return {
    type: error instanceof Error ? error.constructor.name : typeof error,
    code: fields.code,
    message: fields.message,
    data: fields.data,
    causeCode: fields.cause?.code,
    fault: {
      category: fault.error.category,
      code: fault.error.code,
      message: fault.error.message,
      details: fault.error.details,
      dropped: fault.dropped,
      delivered: fault.delivered,
    },
  };
}

type Outcome = { readonly result: unknown } | { readonly error: Record<string, unknown> };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { result: await run() };
  } catch (error) {
    return { error: described(error) };
  }
}

/** `tool` as listed, or, for a tool the upstream does not have, as a stale listing would describe it. */
function toolOf(pair: Pair, name: string): UpstreamTool {
  return pair.tools.find((tool) => tool.name === name) ?? { name, inputSchema: { type: 'object' } };
}

/** The same call through the SDK client, then through the lean path. */
async function both(
  pair: Pair,
  params: LeanCallParams,
  timeout = TIMEOUT_MS,
): Promise<{ sdk: Outcome; lean: Outcome }> {
  const sdk = await outcome(() => pair.client.callTool(params, { timeout }));
  const tool = toolOf(pair, params.name);
  if (!pair.lean.accepts(tool)) throw new Error(`the lean path does not take ${params.name}`);
  const lean = await outcome(() => pair.lean.callTool(params, { timeout }));
  return { sdk, lean };
}

/** Runs each call through both paths and expects the same outcome; returns the outcomes. */
async function expectSame(pair: Pair, calls: readonly LeanCallParams[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const params of calls) {
    const { sdk, lean } = await both(pair, params);
    expect({ call: params.name, outcome: lean }).toEqual({ call: params.name, outcome: sdk });
    outcomes.push(sdk);
  }
  return outcomes;
}

function textOf(outcome: Outcome | undefined): unknown {
  return outcome !== undefined && 'result' in outcome
    ? (outcome.result as { content: { text?: string }[] }).content[0]?.text
    : undefined;
}

describe('the lean path against the SDK client, on the npm servers behind a 2026-07-28 HTTP front', () => {
  const fronts: Front[] = [];
  const pairs: Pair[] = [];
  let scratch: string;

  async function pairBehind(packageName: string, args: string[] = [], env: Record<string, string> = {}) {
    const front = await stdioBehindHttp(packageName, args, env);
    fronts.push(front);
    const pair = await pairOn(front.url);
    pairs.push(pair);
    return pair;
  }

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lean-http-'));
    writeFileSync(join(scratch, 'note.txt'), 'a note\n');
  });
  afterAll(async () => {
    await Promise.all(pairs.map((pair) => pair.close()));
    await Promise.all(fronts.map((front) => front.close()));
    rmSync(scratch, { recursive: true, force: true });
  }, STARTING_MS);

  it(
    'server-everything: text, sums, images, annotations, structured content, resource links and refusals alike',
    async () => {
      const pair = await pairBehind('@modelcontextprotocol/server-everything', ['stdio']);
      const outcomes = await expectSame(pair, [
        { name: 'echo', arguments: { message: 'hello' } },
        { name: 'echo', arguments: { message: 'with meta' }, _meta: { 'example.com/trace': 'abc' } },
        { name: 'get-sum', arguments: { a: 2, b: 3 } },
        { name: 'get-tiny-image', arguments: {} },
        { name: 'get-annotated-message', arguments: { messageType: 'error', includeImage: true } },
        { name: 'get-structured-content', arguments: { location: 'Chicago' } },
        { name: 'get-resource-links', arguments: { count: 2 } },
        { name: 'echo', arguments: {} },
        { name: 'echo' },
        { name: 'no-such-tool', arguments: {} },
      ]);
      expect(textOf(outcomes[0])).toBe('Echo: hello');
      expect(JSON.stringify(outcomes[5])).toContain('"structuredContent":{"temperature"');
      // An SDK v1 McpServer answers an unknown tool as a tool error.
      expect(outcomes[9]).toMatchObject({ result: { isError: true } });
    },
    STARTING_MS,
  );

  it(
    'server-filesystem: listings, a file read, and a file that is not there, alike',
    async () => {
      const pair = await pairBehind('@modelcontextprotocol/server-filesystem', [scratch]);
      const outcomes = await expectSame(pair, [
        { name: 'list_allowed_directories', arguments: {} },
        { name: 'list_directory', arguments: { path: scratch } },
        { name: 'read_text_file', arguments: { path: join(scratch, 'note.txt') } },
        { name: 'read_text_file', arguments: { path: join(scratch, 'missing.txt') } },
        { name: 'read_text_file', arguments: { path: '/etc/hostname' } },
        { name: 'get_file_info', arguments: { path: join(scratch, 'note.txt') } },
      ]);
      expect(textOf(outcomes[2])).toBe('a note\n');
      expect(outcomes[3]).toMatchObject({ result: { isError: true } });
    },
    STARTING_MS,
  );

  it(
    'server-memory: reading the graph, searching and opening nodes, alike',
    async () => {
      const file = join(scratch, 'memory.jsonl');
      const pair = await pairBehind('@modelcontextprotocol/server-memory', [], { MEMORY_FILE_PATH: file });
      await pair.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'gateway', entityType: 'service', observations: ['it relays calls'] }] },
      });
      const outcomes = await expectSame(pair, [
        { name: 'read_graph', arguments: {} },
        { name: 'search_nodes', arguments: { query: 'relays' } },
        { name: 'open_nodes', arguments: { names: ['gateway', 'nobody'] } },
        { name: 'create_relations', arguments: { relations: 'not a list' } },
      ]);
      expect(JSON.stringify(outcomes[0])).toContain('it relays calls');
    },
    STARTING_MS,
  );
});

describe('the lean path against the SDK client, on the SDK v2 test upstream', () => {
  let server: V2Upstream;
  let pair: Pair;

  beforeAll(async () => {
    server = await serveV2();
    pair = await pairOn(server.url);
  });
  afterAll(async () => {
    await pair.close();
    await server.close();
  });

  it('answers structured results, tool errors, invalid arguments and unknown tools alike', async () => {
    const outcomes = await expectSame(pair, [
      { name: 'echo', arguments: { text: 'hi' } },
      { name: 'echo', arguments: { text: 'meta' }, _meta: { 'example.com/trace': 'xyz' } },
      { name: 'fail', arguments: {} },
      { name: 'echo', arguments: { text: 5 } },
      { name: 'gone', arguments: {} },
    ]);
    expect(outcomes[0]).toMatchObject({ result: { structuredContent: { echoed: 'hi' } } });
    expect(server.echoed).toEqual(['hi', 'hi', 'meta', 'meta']);
  });

  it('is not used for a 2025-era connection', async () => {
    const upstream: HttpUpstream = { url: server.url, protocol: '2025-11-25' };
    const link = createUpstreamTransport('legacy', upstream, silentLogger);
    const client = createUpstreamClient(upstream, clientInfo, () => undefined);
    await client.connect(link.transport);
    expect(leanCallerFor(upstream, client, clientInfo, () => undefined)).toBeUndefined();
    await client.close();
    link.dispose();
  });
});

/** An input schema with an argument the SDK mirrors into an `Mcp-Param-Region` header. */
const MIRRORED = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } };

/** The tools of the scripted upstream: each answers as its name says. */
const SCRIPT = [
  {
    name: 'json',
    answer: { body: (id: unknown) => JSON.stringify(resultFor(id, { content: [{ type: 'text', text: 'ok' }] })) },
  },
  {
    name: 'stream',
    answer: {
      contentType: 'text/event-stream',
      body: (id: unknown) =>
        event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }) +
        event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } }) +
        event({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }) +
        event(resultFor(id, { content: [{ type: 'text', text: 'streamed' }] })),
    },
  },
  { name: 'crashes', answer: { status: 500, contentType: 'text/plain', body: 'database down' } },
  { name: 'refuses', answer: { status: 401, contentType: 'text/plain', body: 'no' } },
  { name: 'forbids', answer: { status: 403, contentType: 'text/plain', body: 'not you' } },
  {
    name: 'rejects',
    answer: {
      status: 400,
      body: (id: unknown) =>
        JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad', data: { at: 'x' } } }),
    },
  },
  { name: 'plain-text', answer: { contentType: 'text/plain', body: 'hello' } },
  {
    name: 'untyped',
    answer: { body: (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } }) },
  },
  {
    name: 'task',
    answer: { body: (id: unknown) => JSON.stringify(resultFor(id, { resultType: 'task', content: [] })) },
  },
  { name: 'not-object', answer: { body: (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: 42 }) } },
  {
    name: 'no-structure',
    outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    answer: { body: (id: unknown) => JSON.stringify(resultFor(id, { content: [{ type: 'text', text: 'n/a' }] })) },
  },
  {
    name: 'structured-only',
    outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    answer: { body: (id: unknown) => JSON.stringify(resultFor(id, { content: [], structuredContent: { n: 1 } })) },
  },
  { name: 'silent', answer: { contentType: 'text/event-stream', body: ': nothing yet\n\n' } },
  {
    name: 'headers',
    inputSchema: MIRRORED,
    answer: { body: (id: unknown) => JSON.stringify(resultFor(id, { content: [{ type: 'text', text: 'mirrored' }] })) },
  },
  ...['cut', 'cut-mirrored'].map((name) => ({
    name,
    // The second declares a header the SDK mirrors, so the SDK client calls it.
    ...(name === 'cut' ? {} : { inputSchema: MIRRORED }),
    answer: {
      contentType: 'text/event-stream',
      cut: true,
      body: event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'then nothing' } }),
    },
  })),
];

describe('the lean path against the SDK client, on a scripted 2026-07-28 upstream', () => {
  let server: ScriptedUpstream;
  let pair: Pair;

  beforeAll(async () => {
    server = await scriptedUpstream(SCRIPT);
    pair = await pairOn(server.url);
  });
  afterAll(async () => {
    await pair.close();
    await server.close();
  });

  it('reads a JSON answer and an event stream alike, telling each path of the tool-list change in it', async () => {
    const outcomes = await expectSame(pair, [
      { name: 'json', arguments: {} },
      { name: 'stream', arguments: {} },
    ]);
    expect(outcomes.map(textOf)).toEqual(['ok', 'streamed']);
    expect(pair.changes.lean).toBe(pair.changes.sdk);
  });

  it('fails HTTP refusals, JSON-RPC errors and answers of another type alike', async () => {
    const outcomes = await expectSame(
      pair,
      ['crashes', 'refuses', 'forbids', 'rejects', 'plain-text'].map((name) => ({ name, arguments: {} })),
    );
    expect(
      outcomes.map((outcome) => ('error' in outcome ? (outcome.error.fault as { code: string }).code : 'ok')),
    ).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_REJECTED',
      'UPSTREAM_REJECTED',
      'UPSTREAM_INVALID_PARAMS',
      'UPSTREAM_ERROR',
    ]);
  });

  it('treats results without their era type, of an unsupported type or of no object alike', async () => {
    await expectSame(
      pair,
      ['untyped', 'task', 'not-object'].map((name) => ({ name, arguments: {} })),
    );
  });

  it('passes on what a tool with an output schema answers alike, structured or not (its listing is not cached)', async () => {
    const outcomes = await expectSame(
      pair,
      ['no-structure', 'structured-only'].map((name) => ({ name, arguments: {} })),
    );
    expect(outcomes[0]).toMatchObject({ result: { content: [{ type: 'text', text: 'n/a' }] } });
    expect(outcomes[1]).toMatchObject({ result: { structuredContent: { n: 1 } } });
  });

  it('times out a call whose answer does not come alike', async () => {
    const { sdk, lean } = await both(pair, { name: 'silent', arguments: {} }, 1000);
    expect(lean).toEqual(sdk);
    expect(sdk).toMatchObject({ error: { fault: { code: 'UPSTREAM_TIMEOUT' } } });
  });

  it('leaves a tool whose arguments the SDK mirrors into headers, and names it would encode, to the SDK', () => {
    expect(pair.lean.accepts(toolOf(pair, 'headers'))).toBe(false);
    expect(pair.lean.accepts({ name: 'with space', inputSchema: { type: 'object' } })).toBe(false);
    expect(pair.lean.accepts(undefined)).toBe(false);
    expect(pair.lean.accepts(toolOf(pair, 'json'))).toBe(true);
  });
});

describe('a gateway connection to a 2026-07-28 HTTP upstream', () => {
  let server: ScriptedUpstream;

  beforeAll(async () => {
    server = await scriptedUpstream(SCRIPT);
  });
  afterAll(async () => {
    await server.close();
  });

  /** Whether the last call came the lean way: it sends its protocol headers first, the SDK's fetch sorts them. */
  function lastCallWasLean(): boolean {
    const headers = server.callHeaders.at(-1) ?? [];
    return headers.indexOf('mcp-method') < headers.indexOf('accept');
  }

  it('calls the tools the lean path takes that way and the others through the SDK, with the same results', async () => {
    const connection = await connectUpstream(
      'scripted',
      { url: server.url, protocol: '2026-07-28' },
      {
        logger: silentLogger,
        clientInfo,
      },
    );
    try {
      expect((await connection.callTool('json', {})).content).toEqual([{ type: 'text', text: 'ok' }]);
      expect(lastCallWasLean()).toBe(true);
      expect((await connection.callTool('headers', { region: 'eu' })).content).toEqual([
        { type: 'text', text: 'mirrored' },
      ]);
      expect(lastCallWasLean()).toBe(false);
    } finally {
      await connection.close();
    }
  });

  it('fails a call whose event stream breaks off as an outage at once, as the SDK path does', async () => {
    const connection = await connectUpstream(
      'scripted',
      { url: server.url, protocol: '2026-07-28' },
      {
        logger: silentLogger,
        clientInfo,
      },
    );
    try {
      const failure = async (tool: string) => {
        const error: unknown = await connection.callTool(tool, {}).catch((reason: unknown) => reason);
        if (!ExtensionError.isInstance(error)) throw new Error(`expected an ExtensionError, got ${String(error)}`);
        return { code: error.code, message: error.message.replace(tool, 'the tool') };
      };
      const lean = await failure('cut');
      expect(lastCallWasLean()).toBe(true);
      const sdk = await failure('cut-mirrored');
      expect(lastCallWasLean()).toBe(false);
      expect(lean).toEqual(sdk);
      expect(lean).toEqual({
        code: 'UPSTREAM_UNAVAILABLE',
        message: 'Upstream "scripted" is unavailable: its connection closed while the request was running',
      });
    } finally {
      await connection.close();
    }
  });

  it('fails a call to an upstream that went away as an outage on both paths', async () => {
    const gone = await scriptedUpstream(SCRIPT);
    const pair = await pairOn(gone.url);
    try {
      await gone.close();
      const { sdk, lean } = await both(pair, { name: 'json', arguments: {} });
      // Refused, or reset on a kept-alive socket the upstream closed: which depends on the socket, not the path.
      const fault = (outcome: Outcome) =>
        'error' in outcome
          ? {
              category: (outcome.error.fault as { category: string }).category,
              code: (outcome.error.fault as { code: string }).code,
            }
          : outcome;
      expect(fault(lean)).toEqual(fault(sdk));
      expect(fault(sdk)).toEqual({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    } finally {
      await pair.close();
    }
  });
});
