/**
 * Arguments nested far deeper than the canonical serializer reads (core
 * CORE-48), sent to an idempotent tool: the call is a clean `invalid_input`
 * tool error, never an internal error, and the tool does not run.
 */
import { CANONICAL_MAX_DEPTH, JSON_TOO_DEEP_CODE, silentLogger } from '@ext/core/kit';
import { composeServer, type ExtendedServer } from '@ext/core';
import { createHttpHandler, extendServer, listen, type Listening } from '@ext/core/sdk-v2/server';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { ERRORS_ID, ERRORS_WIRE_VERSION } from '@ext/errors';
import { errorsServer } from '@ext/errors/server';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { idempotencyClient, idempotencyMeta } from './client.js';
import { IDEMPOTENCY_ID } from './schema.js';
import { idempotencyServer } from './server.js';

const DEPTH = 5000;

/** `DEPTH` arrays, one inside the other. */
function deepValue(): unknown {
  let value: unknown = [];
  for (let level = 1; level < DEPTH; level++) value = [value];
  return value;
}

/** Registers `write`, an idempotent tool that counts its runs. */
function writeTool(runs: { count: number }) {
  return (server: ExtendedServer): void => {
    server.registerTool('write', { inputSchema: z.object({ data: z.unknown() }) }, () => {
      runs.count++;
      return { content: [{ type: 'text', text: 'written' }] };
    });
  };
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

describe(`an idempotent call with arguments ${String(DEPTH)} levels deep (core CORE-48)`, () => {
  // The SDK's in-memory link hands the client's object to the server as is, so nothing serializes it on the way.
  it.each([true, false])('is refused as invalid_input on v1 (errors composed: %s)', async (errors) => {
    const runs = { count: 0 };
    const pair: TestPair = await createTestPair({
      line: 'v1',
      serverExtensions: [errors && errorsServer(), idempotencyServer()],
      clientExtensions: [errors && errorsClient(), idempotencyClient()],
      setup: writeTool(runs),
      serverOptions: { logger: silentLogger },
      clientOptions: { logger: silentLogger },
    });
    open.push(pair);
    const result = await pair.client.callTool('write', { data: deepValue() }, { meta: idempotencyMeta('deep-1') });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain(`deeper than ${String(CANONICAL_MAX_DEPTH)} levels`);
    expect(text).not.toContain('call stack');
    if (errors) {
      expect(getStructuredError(result)).toMatchObject({
        code: JSON_TOO_DEEP_CODE,
        category: 'invalid_input',
        details: { max_depth: CANONICAL_MAX_DEPTH },
      });
    }
    expect(runs.count).toBe(0);
  });

  // Over HTTP the SDK's client cannot stringify such a body, so the request is written by hand, as a hostile peer would.
  it('is refused as invalid_input over Streamable HTTP (2026-07-28)', async () => {
    const runs = { count: 0 };
    const composed = composeServer([errorsServer(), idempotencyServer()]);
    const handler = createHttpHandler(
      () => {
        const mcp = new McpServer({ name: 'deep-test', version: '0.0.0' });
        writeTool(runs)(extendServer(mcp, composed, { logger: silentLogger }));
        return mcp;
      },
      { anonymous: 'shared', logger: silentLogger },
    );
    const listening: Listening = await listen(handler, { port: 0 });
    open.push(listening);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {
        extensions: { [ERRORS_ID]: { version: ERRORS_WIRE_VERSION }, [IDEMPOTENCY_ID]: { version: '1.0' } },
      },
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0.0.0' },
      ...idempotencyMeta('deep-2'),
    };
    const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{"data":${deep}},"_meta":${JSON.stringify(meta)}}}`;
    const response = await fetch(listening.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'write',
      },
      body,
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split(/\r?\n/)
          .find((line) => line.startsWith('data:'))
          ?.slice('data:'.length)
      : text;
    const answer = JSON.parse(json ?? 'null') as { result?: Record<string, unknown> };
    expect(answer.result?.isError).toBe(true);
    expect(getStructuredError(answer.result)).toMatchObject({
      code: JSON_TOO_DEEP_CODE,
      category: 'invalid_input',
      details: { max_depth: CANONICAL_MAX_DEPTH },
    });
    expect(runs.count).toBe(0);
  });
});
