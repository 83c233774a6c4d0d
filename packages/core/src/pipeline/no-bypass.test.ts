/**
 * No bypass (core SPEC, CORE-27): once an McpServer is extended, every tool
 * it serves runs through the pipeline, or registering it fails at once.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as MemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport as MemoryV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import { ExtensionError } from '../contract/errors.js';
import type { ServerExtension } from '../contract/extension.js';
import type { ExtendedServer } from '../contract/host.js';
import { silentLogger } from '../telemetry/logger.js';
import { extendServer as extendServerV1 } from '../sdk-v1/index.js';
import { extendServer as extendServerV2 } from '../sdk-v2/index.js';
import type { ToolResult } from '../contract/types.js';

/** A stand-in for the human gate: any tool whose `_meta.gated` is true is refused before its handler. */
const gate: ServerExtension = {
  side: 'server',
  name: '@test/gate',
  ids: ['io.github.mcp-ext/gate'],
  settings: { version: '1.0' },
  stage: 'confirmation',
  middleware: (call, ctx, next) => {
    if (ctx.tool._meta?.gated === true)
      return Promise.reject(new ExtensionError('auth_required', 'GATED', `${call.name} needs a person's approval`));
    return next();
  },
};

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
/** The same, typed as the SDKs' own callbacks want it. */
const sdkOk = () => ({ content: [{ type: 'text' as const, text: 'ran' }] });
/** Asserts that `register` throws at once, naming the server to register on instead. */
function expectRawRefused(register: () => unknown): void {
  let refusal: unknown;
  try {
    register();
  } catch (error) {
    refusal = error;
  }
  expect(refusal).toMatchObject({ code: 'RAW_TOOL_REGISTRATION' });
  expect(String(refusal)).toContain('extendServer returned');
}

interface Served {
  readonly extended: ExtendedServer;
  readonly runs: string[];
  call(name: string): Promise<{ isError?: boolean; text: string }>;
  readonly listChanged: () => number;
  close(): Promise<void>;
}

function firstText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as { text?: unknown }[]) : [];
  return typeof content[0]?.text === 'string' ? content[0].text : '';
}

async function serveV2(): Promise<Served & { readonly raw: McpServerV2 }> {
  const raw = new McpServerV2({ name: 'gated', version: '0' });
  const extended = extendServerV2(raw, composeServer([gate], { logger: silentLogger }));
  const runs: string[] = [];
  extended.registerTool('before_connect', { _meta: { gated: true } }, () => (runs.push('before_connect'), ok('ran')));
  const [clientSide, serverSide] = MemoryV2.createLinkedPair();
  const client = new ClientV2({ name: 'c', version: '0' });
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  await raw.connect(serverSide);
  await client.connect(clientSide);
  return {
    raw,
    extended,
    runs,
    listChanged: () => changes,
    async call(name) {
      const result = await client.callTool({ name, arguments: {} });
      return { isError: result.isError === true, text: firstText(result) };
    },
    close: async () => {
      await client.close();
      await raw.close();
    },
  };
}

async function serveV1(): Promise<Served & { readonly raw: McpServerV1 }> {
  const raw = new McpServerV1({ name: 'gated', version: '0' });
  const extended = extendServerV1(raw, composeServer([gate], { logger: silentLogger }));
  const runs: string[] = [];
  extended.registerTool('before_connect', { _meta: { gated: true } }, () => (runs.push('before_connect'), ok('ran')));
  const [clientSide, serverSide] = MemoryV1.createLinkedPair();
  const client = new ClientV1({ name: 'c', version: '0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await raw.connect(serverSide);
  await client.connect(clientSide);
  return {
    raw,
    extended,
    runs,
    listChanged: () => changes,
    async call(name) {
      const result = await client.callTool({ name, arguments: {} });
      return { isError: result.isError === true, text: firstText(result) };
    },
    close: async () => {
      await client.close();
      await raw.close();
    },
  };
}

async function eventually(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe('SDK v2: no tool past the pipeline', () => {
  it('refuses to register on the raw McpServer or its low-level server, naming the extended server', async () => {
    const served = await serveV2();
    try {
      expectRawRefused(() => served.raw.registerTool('raw', { annotations: { destructiveHint: true } }, sdkOk));
      expectRawRefused(() => {
        served.raw.server.setRequestHandler('tools/call', sdkOk);
      });
      await expect(served.call('raw')).rejects.toThrow(/Tool raw not found/);
    } finally {
      await served.close();
    }
  });

  it('gates tools registered before and after the server started serving, and tells the client of the new ones', async () => {
    const served = await serveV2();
    try {
      expect(await served.call('before_connect')).toEqual({
        isError: true,
        text: "before_connect needs a person's approval",
      });
      served.extended.registerTool(
        'after_connect',
        { _meta: { gated: true } },
        () => (served.runs.push('after_connect'), ok('ran')),
      );
      await eventually(() => served.listChanged() > 0);
      expect(await served.call('after_connect')).toEqual({
        isError: true,
        text: "after_connect needs a person's approval",
      });
      served.extended.registerTool('open_tool', {}, () => (served.runs.push('open_tool'), ok('ran')));
      expect(await served.call('open_tool')).toMatchObject({ text: 'ran' });
      expect(served.runs).toEqual(['open_tool']);
    } finally {
      await served.close();
    }
  });

  it('refuses to extend an McpServer that already serves tools', () => {
    const raw = new McpServerV2({ name: 'early', version: '0' });
    raw.registerTool('early', {}, sdkOk);
    expect(() => extendServerV2(raw, [gate])).toThrow(/before any tool is registered/);
  });
});

describe('SDK v1: no tool past the pipeline', () => {
  it('refuses registerTool, tool and a tools/call handler on the raw server, naming the extended server', async () => {
    const served = await serveV1();
    try {
      expectRawRefused(() => served.raw.registerTool('raw', { annotations: { destructiveHint: true } }, sdkOk));
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the deprecated path must be closed too
      expectRawRefused(() => served.raw.tool('raw', sdkOk));
      expectRawRefused(() => {
        served.raw.server.setRequestHandler(CallToolRequestSchema, sdkOk);
      });
      expect((await served.call('raw')).isError).toBe(true);
    } finally {
      await served.close();
    }
  });

  it('gates tools registered before and after the server started serving, and tells the client of the new ones', async () => {
    const served = await serveV1();
    try {
      expect(await served.call('before_connect')).toEqual({
        isError: true,
        text: "before_connect needs a person's approval",
      });
      served.extended.registerTool(
        'after_connect',
        { _meta: { gated: true } },
        () => (served.runs.push('after_connect'), ok('ran')),
      );
      await eventually(() => served.listChanged() > 0);
      expect(await served.call('after_connect')).toEqual({
        isError: true,
        text: "after_connect needs a person's approval",
      });
      served.extended.registerTool('open_tool', {}, () => (served.runs.push('open_tool'), ok('ran')));
      expect(await served.call('open_tool')).toMatchObject({ text: 'ran' });
      expect(served.runs).toEqual(['open_tool']);
    } finally {
      await served.close();
    }
  });

  it('refuses to extend an McpServer that already serves tools', () => {
    const raw = new McpServerV1({ name: 'early', version: '0' });
    raw.registerTool('early', {}, sdkOk);
    expect(() => extendServerV1(raw, [gate])).toThrow(/before any tool is registered/);
  });
});
