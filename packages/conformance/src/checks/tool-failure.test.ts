import { composeServer, type ServerExtension, type ToolResult } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { errorsServer } from '@ext/errors/server';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Target } from '../probe.js';
import { runConformance, type RunOutcome } from '../runner.js';
import { TOOL_FAILURE_KEY, toolFailureViolations } from './tool-failure.js';

const ERRORS_ID = 'io.github.mcp-ext/errors';
const CHECKS = ['errors/tool-failure-shape', 'errors/tool-failure-agrees'];

type Rewrite = (failure: Record<string, unknown>, result: ToolResult) => Record<string, unknown>;

/** Faults planted in the SEP-3313 key the errors middleware writes, each with the checks that must catch it. */
const FAULTS: Record<string, { rewrite: Rewrite; fails: string[] }> = {
  // The draft: retryable MUST be absent or false outside reliability.
  'retryable-capability': { rewrite: (failure) => ({ ...failure, retryable: true }), fails: [CHECKS[0] ?? ''] },
  // The draft: correlationId is REQUIRED.
  'no-correlation-id': {
    rewrite: ({ correlationId: _dropped, ...rest }) => rest,
    fails: [CHECKS[0] ?? ''],
  },
  // Two answers: the draft key contradicts the structured error beside it.
  'class-disagrees': {
    rewrite: (failure, result) => (isRecord(result._meta?.[ERRORS_ID]) ? { ...failure, class: 'governance' } : failure),
    fails: [CHECKS[1] ?? ''],
  },
};

/** The errors extension with `rewrite` applied to the draft key of every failed result. */
function planted(errors: ServerExtension, rewrite: Rewrite): ServerExtension {
  const inner = errors.middleware;
  if (inner === undefined) throw new Error('the errors extension has no middleware');
  return {
    ...errors,
    middleware: async (call, ctx, next) => {
      const result = await inner(call, ctx, next);
      const failure = result._meta?.[TOOL_FAILURE_KEY];
      if (!isRecord(failure)) return result;
      return { ...result, _meta: { ...result._meta, [TOOL_FAILURE_KEY]: rewrite(failure, result) } };
    },
  };
}

/** Serves a one-tool server over HTTP in-process, runs the errors suite against it, and closes it. */
async function run(errors: ServerExtension, protocolVersion: string): Promise<RunOutcome> {
  const composed = composeServer([errors]);
  const createServer = (): McpServer => {
    const server = new McpServer({ name: 'counter', version: '1.0.0' });
    extendServer(server, composed).registerTool(
      'add',
      { description: 'Adds to a counter.', inputSchema: z.object({ count: z.number() }) },
      ({ count }) => ({ content: [{ type: 'text', text: String(count) }] }),
    );
    return server;
  };
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    const target: Target = { kind: 'http', url: String(listening.url) };
    return await runConformance({ target, protocolVersion, extensions: ['errors'] });
  } finally {
    await listening.close();
  }
}

const statusOf = (outcome: RunOutcome, id: string): string | undefined =>
  outcome.results.find((result) => result.id === id)?.status;

describe.each(['2025-11-25', '2026-07-28'])('the SEP-3313 checks of the errors suite on %s', (protocolVersion) => {
  it('pass against a server that writes the draft key', async () => {
    const outcome = await run(errorsServer({ toolFailure: true }), protocolVersion);
    expect(CHECKS.map((id) => statusOf(outcome, id))).toEqual(['passed', 'passed']);
    expect(outcome.exitCode).toBe(0);
  });

  it('skip against a server that does not', async () => {
    const outcome = await run(errorsServer(), protocolVersion);
    expect(CHECKS.map((id) => statusOf(outcome, id))).toEqual(['skipped', 'skipped']);
    expect(outcome.exitCode).toBe(0);
  });

  it.each(Object.entries(FAULTS))('catch a planted fault: %s', async (_fault, { rewrite, fails }) => {
    const outcome = await run(planted(errorsServer({ toolFailure: true }), rewrite), protocolVersion);
    const failed = outcome.results.filter((result) => result.status === 'failed').map((result) => result.id);
    expect(failed).toEqual(fails);
    expect(outcome.exitCode).toBe(1);
  });
});

describe('toolFailureViolations', () => {
  it('accepts the draft example and names each problem of a broken object', () => {
    const example = {
      class: 'governance',
      code: 'auth_required',
      correlationId: 'req_8f2c1a-attempt-3',
      agentGuidance: 'Ask the user to reconnect their account, then retry the same call.',
    };
    expect(toolFailureViolations(example)).toEqual([]);
    expect(toolFailureViolations({ class: 'other', code: '', retryNotBefore: 'soon' })).toHaveLength(5);
  });
});
