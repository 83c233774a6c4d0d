import { composeServer, MemoryStore, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { extendClient as extendV1Client, extendServer as extendV1Server } from '@ext/core/sdk-v1';
import { createHttpHandler, extendClient as extendV2Client, extendServer as extendV2Server } from '@ext/core/sdk-v2';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { Client as V2Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer as V2McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { confirmationElicitationHandler, type ConfirmationRequest } from './client.js';
import { confirmationServer } from './server.js';
import { deleteRepoTool } from './test-fixtures/gated-tools.js';

interface Linked {
  /** Calls a tool through the extended client; the SDK client answers elicitations with the registered handler. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** SDK v1 over the in-memory transport; the handler goes straight into `setRequestHandler(ElicitRequestSchema, ...)`. */
async function linkV1(ran: string[], confirm: (request: ConfirmationRequest) => Promise<boolean>): Promise<Linked> {
  const mcp = new V1McpServer({ name: 'repos', version: '0.0.0' });
  deleteRepoTool(ran)(extendV1Server(mcp, [errorsServer(), confirmationServer()], { logger: silentLogger }));
  const sdkClient = new V1Client({ name: 'host', version: '0.0.0' }, { capabilities: { elicitation: {} } });
  sdkClient.setRequestHandler(ElicitRequestSchema, confirmationElicitationHandler(confirm));
  const client = extendV1Client(sdkClient, [errorsClient()], { logger: silentLogger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverTransport);
  await sdkClient.connect(clientTransport);
  return {
    call: (name, args) => client.callTool(name, args),
    close: async () => {
      await sdkClient.close();
      await mcp.close();
    },
  };
}

/** SDK v2 over Streamable HTTP in process; the handler goes straight into `setRequestHandler('elicitation/create', ...)`. */
async function linkV2(
  era: 'legacy' | 'modern',
  ran: string[],
  confirm: (request: ConfirmationRequest) => Promise<boolean>,
): Promise<Linked> {
  const composed = composeServer([errorsServer(), confirmationServer()], { logger: silentLogger });
  const store = new MemoryStore();
  const handler = createHttpHandler(
    () => {
      const mcp = new V2McpServer({ name: 'repos', version: '0.0.0' });
      deleteRepoTool(ran)(extendV2Server(mcp, composed, { store, logger: silentLogger }));
      return mcp;
    },
    { anonymous: 'shared', logger: silentLogger },
  );
  const sdkClient = new V2Client(
    { name: 'host', version: '0.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      capabilities: { elicitation: { form: {} } },
    },
  );
  sdkClient.setRequestHandler('elicitation/create', confirmationElicitationHandler(confirm));
  const client = extendV2Client(sdkClient, [errorsClient()], { logger: silentLogger });
  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => handler.fetch(new Request(url, init));
  await sdkClient.connect(new StreamableHTTPClientTransport(new URL('http://repos.test/mcp'), { fetch }));
  return {
    call: (name, args) => client.callTool(name, args),
    close: async () => {
      await sdkClient.close();
      await handler.close();
    },
  };
}

const LINES = {
  v1: linkV1,
  'v2-legacy': (ran: string[], confirm: (request: ConfirmationRequest) => Promise<boolean>) =>
    linkV2('legacy', ran, confirm),
  'v2-modern': (ran: string[], confirm: (request: ConfirmationRequest) => Promise<boolean>) =>
    linkV2('modern', ran, confirm),
} as const;

const open: Linked[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((linked) => linked.close()));
});

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

describe.each(Object.keys(LINES) as (keyof typeof LINES)[])(
  'confirmationElicitationHandler registered directly on the SDK client (%s)',
  (line) => {
    it('CONF-6: the server asks in-band, the handler asks the host, and the call completes on a yes', async () => {
      const ran: string[] = [];
      const asked: ConfirmationRequest[] = [];
      let answer = true;
      const linked = await LINES[line](ran, (request) => {
        asked.push(request);
        return Promise.resolve(answer);
      });
      open.push(linked);

      const done = await linked.call('delete_repo', { repo: 'old' });
      expect(done.isError).toBeFalsy();
      expect(textOf(done)).toBe('deleted old');
      expect(asked).toEqual([
        {
          kind: 'call',
          via: 'elicitation',
          tool: 'delete_repo',
          arguments: {},
          message: 'Delete old?',
          riskLevel: 'destructive',
        },
      ]);

      answer = false;
      const declined = await linked.call('delete_repo', { repo: 'prod' });
      expect(declined.isError).toBe(true);
      expect(ran).toEqual(['old']);
    });
  },
);

describe('confirmationElicitationHandler called with the bare prompt, as 0.1 documented', () => {
  it('answers a confirmation prompt and hands anything else to the fallback', async () => {
    const handler = confirmationElicitationHandler(
      () => Promise.resolve(true),
      () => Promise.resolve({ action: 'accept', content: { name: 'x' } }),
    );
    const prompt = {
      message: 'Delete old?\n\nRisk level: destructive.',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', description: 'Approve this destructive operation: delete_repo' } },
        required: ['confirm'],
      },
    };
    expect(await handler(prompt)).toEqual({ action: 'accept', content: { confirm: true } });
    expect(await handler({ method: 'elicitation/create', params: prompt })).toEqual({
      action: 'accept',
      content: { confirm: true },
    });
    expect(await handler({ message: 'Your name?', requestedSchema: { type: 'object', properties: {} } })).toEqual({
      action: 'accept',
      content: { name: 'x' },
    });
  });
});
