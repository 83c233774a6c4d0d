import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeServer } from './compose.js';
import type { ServerAttachment, ServerExtension } from '../contract/extension.js';
import { resumesDetachedRun } from '../cooperation/detached-run.js';
import { defineLocal } from '../kit/locals.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { extendServer } from '../sdk-v2/index.js';

const marked = defineLocal<string>('test/marked');

/** An extension that keeps what `attach` hands it, and records the calls its middleware sees. */
function resumer(seen: string[]): { extension: ServerExtension; attached: () => ServerAttachment } {
  let attachment: ServerAttachment | undefined;
  const extension: ServerExtension = {
    side: 'server',
    name: '@ext/resumer',
    ids: ['io.github.mcp-ext/resumer'],
    settings: { version: '1.0' },
    stage: 'tasks',
    attach: (host) => {
      attachment = host;
    },
    middleware: async (call, ctx, next) => {
      seen.push(
        `${call.name}:${ctx.principal}:${ctx.era}:${String(marked.get(ctx))}:${String(resumesDetachedRun(ctx))}`,
      );
      return next();
    },
  };
  return { extension, attached: () => attachment! };
}

describe('runTool on the attachment (CORE-42)', () => {
  it('runs a registered tool through the pipeline as the given caller, with validated arguments', async () => {
    const seen: string[] = [];
    const { extension, attached } = resumer(seen);
    const composed = composeServer([extension], { logger: silentLogger });
    const store = new MemoryStore();
    const server = extendServer(new McpServer({ name: 's', version: '1.0.0' }), composed, { store });
    server.registerTool('double', { inputSchema: z.object({ n: z.number() }) }, ({ n }, ctx) => ({
      content: [{ type: 'text', text: `${n * 2} for ${ctx.principal}` }],
    }));
    const result = await attached().runTool!({
      name: 'double',
      arguments: { n: 21 },
      identity: { principal: 'user:ada', source: 'custom' },
      prepare: (ctx) => {
        marked.set(ctx, 'yes');
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: '42 for user:ada' }]);
    expect(seen).toEqual(['double:user:ada:modern:yes:false']);
  });

  it('CORE-47: a call made with resumes: true reads as a resumption in every stage; others never do', async () => {
    const seen: string[] = [];
    const { extension, attached } = resumer(seen);
    const composed = composeServer([extension], { logger: silentLogger });
    const server = extendServer(new McpServer({ name: 's', version: '1.0.0' }), composed, { store: new MemoryStore() });
    server.registerTool('noop', {}, () => ({ content: [] }));
    const identity = { principal: 'user:ada', source: 'custom' } as const;
    await attached().runTool!({ name: 'noop', arguments: {}, identity, resumes: true });
    await attached().runTool!({ name: 'noop', arguments: {}, identity, resumes: false });
    await attached().runTool!({ name: 'noop', arguments: {}, identity });
    expect(seen.map((line) => line.split(':').at(-1))).toEqual(['true', 'false', 'false']);
  });

  it('refuses bad arguments as the pipeline does, and a tool nobody registered', async () => {
    const { extension, attached } = resumer([]);
    const composed = composeServer([extension], { logger: silentLogger });
    const server = extendServer(new McpServer({ name: 's', version: '1.0.0' }), composed, { store: new MemoryStore() });
    server.registerTool('double', { inputSchema: z.object({ n: z.number() }) }, ({ n }) => ({
      content: [{ type: 'text', text: String(n * 2) }],
    }));
    const identity = { principal: 'user:ada', source: 'custom' } as const;
    await expect(attached().runTool!({ name: 'double', arguments: { n: 'x' }, identity })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(attached().runTool!({ name: 'missing', arguments: {}, identity })).rejects.toThrow(
      'no extended server registered the tool missing',
    );
  });
});
