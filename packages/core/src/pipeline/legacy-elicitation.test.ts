/**
 * CORE-35: on the legacy era, a server-to-client request a tool makes
 * (elicitation) travels on the stream of the call that asked, on both SDK
 * lines. A client need not open the optional standalone GET stream: many
 * never do, and one that opens it late must not lose the question.
 */
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import { LEGACY_HEADERS, openSession, serveOverHttp } from '../http/http-test-fixtures.js';
import { silentLogger } from '../telemetry/logger.js';
import { createHttpHandler as createHttpHandlerV1, extendServer as extendServerV1 } from '../sdk-v1/index.js';
import { createHttpHandler as createHttpHandlerV2, extendServer as extendServerV2 } from '../sdk-v2/index.js';
import type { ToolResult } from '../contract/types.js';
import type { RequestContext } from '../contract/extension.js';

async function askTool(_args: unknown, ctx: Pick<RequestContext, 'elicit'>): Promise<ToolResult> {
  if (ctx.elicit === undefined) throw new Error('no elicitation');
  const answer = await ctx.elicit({
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return { content: [{ type: 'text', text: `${answer.action}:${String(answer.content?.name)}` }] };
}

function handlerFor(line: 'v1' | 'v2-legacy') {
  const composed = composeServer([], { logger: silentLogger });
  const options = { anonymous: 'shared' as const, logger: silentLogger };
  if (line === 'v1') {
    return createHttpHandlerV1(() => {
      const mcp = new McpServerV1({ name: 'ask-test', version: '0' });
      extendServerV1(mcp, composed).registerTool('ask', {}, askTool);
      return mcp;
    }, options);
  }
  return createHttpHandlerV2(() => {
    const mcp = new McpServerV2({ name: 'ask-test', version: '0' });
    extendServerV2(mcp, composed).registerTool('ask', {}, askTool);
    return mcp;
  }, options);
}

/** The JSON-RPC messages of an SSE body, one at a time; gives up after `ms` without one. */
function sseMessages(response: Response, ms: number): () => Promise<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  return async () => {
    const deadline = Date.now() + ms;
    for (;;) {
      const data = /^data: (.*)$/m.exec(buffered);
      if (data?.[1] !== undefined) {
        buffered = buffered.slice(data.index + data[0].length);
        return JSON.parse(data[1]) as Record<string, unknown>;
      }
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(
          () => {
            reject(new Error('no message on the call stream'));
          },
          Math.max(0, deadline - Date.now()),
        ).unref(),
      );
      const { done, value } = await Promise.race([reader.read(), timeout]);
      if (done) throw new Error('the call stream ended');
      buffered += value;
    }
  };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

describe.each(['v1', 'v2-legacy'] as const)('a tool asking its client on %s (CORE-35)', (line) => {
  it('asks on the stream of the call, with no standalone stream open', async () => {
    const handler = handlerFor(line);
    const served = await serveOverHttp(handler);
    open.push(async () => {
      await handler.close();
      await served.close();
    });
    const session = await openSession(served.url, {}, { elicitation: { form: {} } });
    const headers = { ...LEGACY_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const call = await fetch(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }),
    });
    const next = sseMessages(call, 5_000);
    const question = await next();
    expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'Your name?' } });
    const answered = await fetch(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } }),
    });
    expect(answered.status).toBe(202);
    expect(await next()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'accept:Ada' }] } });
  });

  it("takes the answer only from the session that was asked: another client's answer to the same id is ignored", async () => {
    const handler = handlerFor(line);
    const served = await serveOverHttp(handler);
    open.push(async () => {
      await handler.close();
      await served.close();
    });
    const asked = await openSession(served.url, {}, { elicitation: { form: {} } });
    const intruder = await openSession(served.url, {}, { elicitation: { form: {} } });
    const headersOf = (session: string) => ({
      ...LEGACY_HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    });
    const call = await fetch(served.url, {
      method: 'POST',
      headers: headersOf(asked),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } }),
    });
    const next = sseMessages(call, 5_000);
    const question = await next();
    const forged = { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Mallory' } } };
    await (
      await fetch(served.url, { method: 'POST', headers: headersOf(intruder), body: JSON.stringify(forged) })
    ).text();
    const answer = { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } };
    await (await fetch(served.url, { method: 'POST', headers: headersOf(asked), body: JSON.stringify(answer) })).text();
    expect(await next()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'accept:Ada' }] } });
  });
});
