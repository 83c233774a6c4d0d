// Upstreams started over stdio: the unmodified npm servers `server-memory` and `server-filesystem`, as real child processes.
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ExtensionError } from '@ext/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StdioUpstream } from '../config/schema.js';
import { connectUpstream } from './connection.js';
import type { UpstreamConnection } from './types.js';
import { binOf, childPid, childProcesses, recordingLogger } from './testing/servers.js';

const clientInfo = { name: 'gateway-test', version: '0.0.0' };
const MEMORY = binOf('@modelcontextprotocol/server-memory');
const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');

async function rejection(promise: Promise<unknown>): Promise<ExtensionError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ExtensionError.isInstance(error)) throw new Error(`expected an ExtensionError, got ${String(error)}`);
  return error;
}

function text(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.text ?? '';
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'gateway-stdio-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A memory server whose command line carries `marker` (it ignores the argument), storing in `file`. */
function memory(marker: string, file: string, extra: Partial<StdioUpstream> = {}): StdioUpstream {
  return { command: process.execPath, args: [MEMORY, marker], env: { MEMORY_FILE_PATH: file }, ...extra };
}

describe('server-memory over stdio', () => {
  it('lists its tools, calls them, and receives the env the config adds', async () => {
    const file = join(scratch, 'graph.jsonl');
    const connection = await connectUpstream('memory', memory('env-test', file), {
      logger: recordingLogger(),
      clientInfo,
    });
    try {
      const names = (await connection.tools()).map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['create_entities', 'read_graph', 'search_nodes']));
      const created = await connection.callTool('create_entities', {
        entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
      });
      expect(created.isError).not.toBe(true);
      const graph = await connection.callTool('read_graph', {});
      expect(text(graph)).toContain('wrote the first program');
      // MEMORY_FILE_PATH reached the child: it stored the graph there.
      expect(await readFile(file, 'utf8')).toContain('Ada');
    } finally {
      await connection.close();
    }
  });

  it('does not hand the gateway’s own environment to the child, only a minimal one and the config’s', async () => {
    const leaked = join(scratch, 'leaked.jsonl');
    await writeFile(
      leaked,
      `${JSON.stringify({ type: 'entity', name: 'Leaked', entityType: 'x', observations: [] })}\n`,
    );
    const before = process.env.MEMORY_FILE_PATH;
    process.env.MEMORY_FILE_PATH = leaked;
    try {
      const upstream = { command: process.execPath, args: [MEMORY, 'minimal-env'] };
      const bare = await connectUpstream('memory', upstream, { logger: recordingLogger(), clientInfo });
      const configured = await connectUpstream(
        'memory',
        { ...upstream, env: { MEMORY_FILE_PATH: leaked } },
        { logger: recordingLogger(), clientInfo },
      );
      try {
        expect(text(await bare.callTool('read_graph', {}))).not.toContain('Leaked');
        expect(text(await configured.callTool('read_graph', {}))).toContain('Leaked');
      } finally {
        await Promise.all([bare.close(), configured.close()]);
      }
    } finally {
      if (before === undefined) delete process.env.MEMORY_FILE_PATH;
      else process.env.MEMORY_FILE_PATH = before;
    }
  });

  it('passes a tool error of the upstream through as it is', async () => {
    const connection = await connectUpstream('memory', memory('tool-error', join(scratch, 'e.jsonl')), {
      logger: recordingLogger(),
      clientInfo,
    });
    try {
      const result = await connection.callTool('create_entities', { entities: 'not a list' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/entities/);
    } finally {
      await connection.close();
    }
  });

  it('starts again once when the process was killed, then reports a transient UPSTREAM_UNAVAILABLE when it cannot', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'gateway-cwd-'));
    const marker = `killed-${Date.now()}`;
    const logger = recordingLogger();
    const connection = await connectUpstream('memory', memory(marker, join(scratch, 'k.jsonl'), { cwd }), {
      logger,
      clientInfo,
    });
    const exited = () => logger.warnings().filter((entry) => entry.message.includes('its process exited'));
    try {
      const first = childPid(marker);
      process.kill(first, 'SIGKILL');
      await vi.waitFor(() => {
        expect(exited()).toHaveLength(1);
      });
      // The next call starts it again and is answered.
      expect(text(await connection.callTool('read_graph', {}))).toContain('entities');
      expect(childPid(marker)).not.toBe(first);
      expect(logger.warnings().at(-1)?.message).toBe('Upstream "memory" is answering again');

      // Killed again, and its working directory gone: it cannot be started any more.
      await rm(cwd, { recursive: true });
      process.kill(childPid(marker), 'SIGKILL');
      await vi.waitFor(() => {
        expect(exited()).toHaveLength(2);
      });
      const errors = [
        await rejection(connection.callTool('read_graph', {})),
        await rejection(connection.callTool('read_graph', {})),
        await rejection(connection.tools().then(() => connection.callTool('read_graph', {}))),
      ];
      expect(errors[0]?.message).toMatch(/^Upstream "memory" is unavailable: it cannot be started/);
      for (const error of errors) {
        expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
        // Once its breaker opens (every failed start counts), calls fail at once, naming the last failure.
        expect(error.details?.last_error ?? error.message).toMatch(
          /^Upstream "memory" is unavailable: it cannot be started/,
        );
        expect(error.toStructured().retry_after_seconds).toBeGreaterThan(0);
      }
      // One warning for the outage (the exit), not one per failed call.
      const outage = logger.warnings().slice(logger.warnings().lastIndexOf(exited()[1]!));
      expect(outage).toHaveLength(1);
      // The last list stands while the upstream is down.
      expect((await connection.tools()).map((tool) => tool.name)).toContain('read_graph');
    } finally {
      await connection.close();
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('leaves no child process once closed', async () => {
    const marker = `closing-${Date.now()}`;
    const connection = await connectUpstream('memory', memory(marker, join(scratch, 'c.jsonl')), {
      logger: recordingLogger(),
      clientInfo,
    });
    expect(childProcesses(marker)).toHaveLength(1);
    await connection.close();
    await vi.waitFor(() => {
      expect(childProcesses(marker)).toEqual([]);
    });
    const error = await rejection(connection.callTool('read_graph', {}));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('fails to connect with a transient UPSTREAM_UNAVAILABLE when the command cannot be started', async () => {
    const logger = recordingLogger();
    const error = await rejection(
      connectUpstream('missing', { command: join(scratch, 'no-such-program') }, { logger, clientInfo }),
    );
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toMatch(/^Upstream "missing" is unavailable: it cannot be started \(.*ENOENT.*\)$/);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(logger.warnings()).toHaveLength(1);
  });

  it('reports a process that exits while starting, with what it wrote to stderr', async () => {
    const error = await rejection(
      connectUpstream(
        'broken',
        { command: process.execPath, args: ['-e', 'console.error("no config here"); process.exit(3)'] },
        { logger: recordingLogger(), clientInfo },
      ),
    );
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toContain('Upstream "broken" is unavailable');
    expect(error.details).toMatchObject({ stderr: 'no config here' });
  });
});

describe('server-filesystem over stdio', () => {
  let dir: string;
  let connection: UpstreamConnection;
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'gateway-fs-')));
    await writeFile(join(dir, 'note.txt'), 'hello from the file');
    // `.` resolved in the configured working directory: the directory it may read.
    connection = await connectUpstream(
      'files',
      { command: process.execPath, args: [FILESYSTEM, '.'], cwd: dir },
      {
        logger: recordingLogger(),
        clientInfo,
      },
    );
  });
  afterAll(async () => {
    await connection.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists its tools with titles, schemas and annotations as it lists them', async () => {
    const read = (await connection.tools()).find((tool) => tool.name === 'read_text_file');
    expect(read).toMatchObject({
      title: 'Read Text File',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { content: { type: 'string' } } },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  });

  it('runs in the configured working directory and reads a file there', async () => {
    expect(text(await connection.callTool('list_allowed_directories', {}))).toContain(dir);
    const result = await connection.callTool('read_text_file', { path: join(dir, 'note.txt') });
    expect(result).toMatchObject({ structuredContent: { content: 'hello from the file' } });
  });

  it('passes its refusal of a path outside the directory through as a tool error', async () => {
    const result = await connection.callTool('read_text_file', { path: join(dirname(dir), 'outside.txt') });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/denied|outside/i);
  });
});
