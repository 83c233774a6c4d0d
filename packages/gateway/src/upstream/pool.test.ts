// The pool: several real upstreams (server-memory over stdio, an SDK v2 server over HTTP) behind one list of tools.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExtensionError } from '@ext/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StdioUpstream } from '../config/schema.js';
import { splitExposedName, UpstreamPool } from './pool.js';
import {
  binOf,
  childProcesses,
  recordingLogger,
  REFUSED_CREDENTIALS,
  serveV2,
  type V2Upstream,
} from './testing/servers.js';

const options = { logger: recordingLogger(), clientInfo: { name: 'gateway-test', version: '0.0.0' } };
const MEMORY = binOf('@modelcontextprotocol/server-memory');

let scratch: string;
let api: V2Upstream;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'gateway-pool-'));
  api = await serveV2();
});
afterAll(async () => {
  await api.close();
  await rm(scratch, { recursive: true, force: true });
});

function memory(marker: string): StdioUpstream {
  return {
    command: process.execPath,
    args: [MEMORY, marker],
    env: { MEMORY_FILE_PATH: join(scratch, `${marker}.jsonl`) },
  };
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.text ?? '';
}

describe('a pool of two upstreams', () => {
  const marker = `pool-two-${Date.now()}`;
  let pool: UpstreamPool;
  beforeAll(async () => {
    pool = await UpstreamPool.connect({ memory: memory(marker), api: { url: api.url } }, options);
  });
  afterAll(async () => {
    await pool.close();
  });

  it('offers every tool as <upstream>__<tool>, knowing its upstream and original name', async () => {
    const tools = await pool.tools();
    expect(tools.find((tool) => tool.name === 'memory__read_graph')).toMatchObject({
      upstream: 'memory',
      originalName: 'read_graph',
    });
    expect(tools.find((tool) => tool.name === 'api__echo')).toMatchObject({
      upstream: 'api',
      originalName: 'echo',
      title: 'Echo',
      annotations: { readOnlyHint: true },
    });
    expect(tools.every((tool) => tool.name === `${tool.upstream}__${tool.originalName}`)).toBe(true);
  });

  it('routes a call to its upstream under the original name', async () => {
    expect(text(await pool.call('api__echo', { text: 'routed' }))).toBe('routed');
    await pool.call('memory__create_entities', { entities: [{ name: 'Pool', entityType: 'test', observations: [] }] });
    expect(text(await pool.call('memory__read_graph', {}))).toContain('Pool');
    expect((await pool.call('api__fail', {})).isError).toBe(true);
  });

  it('refuses a name no upstream offers', async () => {
    for (const name of ['echo', 'other__echo', 'api__']) {
      const error: unknown = await pool.call(name, {}).catch((reason: unknown) => reason);
      expect(ExtensionError.isInstance(error) && error.toStructured()).toMatchObject({
        category: 'invalid_input',
        code: 'UNKNOWN_TOOL',
      });
    }
  });

  it('passes on a change of one upstream’s tools (spoken to in the era `auto` found)', async () => {
    let changes = 0;
    const changed = new Promise<void>((resolve) =>
      pool.onToolsChanged(() => {
        changes += 1;
        resolve();
      }),
    );
    api.addTool('pooled_late');
    await changed;
    expect(changes).toBeGreaterThan(0);
    expect((await pool.tools()).map((tool) => tool.name)).toContain('api__pooled_late');
  });

  it('ends every child process when closed', async () => {
    const other = `pool-close-${Date.now()}`;
    const closing = await UpstreamPool.connect({ one: memory(`${other}-a`), two: memory(`${other}-b`) }, options);
    expect(childProcesses(other)).toHaveLength(2);
    await closing.close();
    await vi.waitFor(() => {
      expect(childProcesses(other)).toEqual([]);
    });
  });
});

describe('a pool of one upstream', () => {
  it('offers its tools under their own names', async () => {
    const pool = await UpstreamPool.connect({ api: { url: api.url } }, options);
    try {
      const tools = await pool.tools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'fail', 'slow']));
      expect(tools.every((tool) => tool.name === tool.originalName && tool.upstream === 'api')).toBe(true);
      expect(text(await pool.call('echo', { text: 'as is' }))).toBe('as is');
    } finally {
      await pool.close();
    }
  });
});

describe('connecting a pool where one upstream fails', () => {
  it('closes the others and throws the failure naming the upstream', async () => {
    const marker = `pool-fail-${Date.now()}`;
    const error: unknown = await UpstreamPool.connect(
      { good: memory(marker), bad: { command: join(scratch, 'no-such-program') } },
      options,
    ).catch((reason: unknown) => reason);
    expect(ExtensionError.isInstance(error) && error.toStructured()).toMatchObject({
      category: 'transient',
      code: 'UPSTREAM_UNAVAILABLE',
      message: expect.stringContaining('Upstream "bad"') as unknown,
    });
    await vi.waitFor(() => {
      expect(childProcesses(marker)).toEqual([]);
    });
  });
});

describe('connecting a pool where an HTTP upstream is down or refuses the gateway', () => {
  it('serves one that cannot be reached, without its tools, and calls to it fail as transient', async () => {
    const gone = await serveV2();
    await gone.close();
    const pool = await UpstreamPool.connect({ api: { url: api.url }, gone: { url: gone.url } }, options);
    try {
      expect(new Set((await pool.tools()).map((tool) => tool.upstream))).toEqual(new Set(['api']));
      expect([pool.isConnected('api'), pool.isConnected('gone')]).toEqual([true, false]);
      const error: unknown = await pool.call('gone__echo', { text: 'x' }).catch((reason: unknown) => reason);
      expect(ExtensionError.isInstance(error) && error.toStructured()).toMatchObject({
        category: 'transient',
        code: 'UPSTREAM_UNAVAILABLE',
      });
    } finally {
      await pool.close();
    }
  });

  it('still refuses to start when an upstream refuses the gateway’s credentials: waiting would not mend that', async () => {
    const headers = { authorization: REFUSED_CREDENTIALS };
    const error: unknown = await UpstreamPool.connect({ api: { url: api.url, headers } }, options).catch(
      (reason: unknown) => reason,
    );
    expect(ExtensionError.isInstance(error) && error.toStructured()).toMatchObject({
      category: 'permanent',
      code: 'UPSTREAM_REJECTED',
    });
  });
});

describe('splitExposedName', () => {
  it('reads a name with one upstream as the tool name itself', () => {
    expect(splitExposedName('a__b', ['only'])).toEqual([{ upstream: 'only', tool: 'a__b' }]);
  });

  it('offers every upstream whose prefix matches, when names overlap', () => {
    expect(splitExposedName('a__b__t', ['a', 'a__b', 'c'])).toEqual([
      { upstream: 'a', tool: 'b__t' },
      { upstream: 'a__b', tool: 't' },
    ]);
    expect(splitExposedName('c__', ['a', 'c'])).toEqual([]);
  });
});

describe('upstream names that overlap', () => {
  it('route a call to the upstream that has the tool', async () => {
    const pool = await UpstreamPool.connect({ a: { url: api.url }, a__fail: { url: api.url } }, options);
    try {
      // `a__fail__echo` could be a's "fail__echo" (none) or a__fail's "echo".
      expect(text(await pool.call('a__fail__echo', { text: 'overlap' }))).toBe('overlap');
    } finally {
      await pool.close();
    }
  });
});
