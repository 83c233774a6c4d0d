/** The errors suite: the checks of a server that advertises `io.github.mcp-ext/errors`. */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { describe, ensure } from '../assert.js';
import { firstText, invalidArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { ERRORS_ID } from './methods.js';
import { CLASS_OF_CATEGORY, TOOL_FAILURE_KEY, toolFailureViolations } from './tool-failure.js';

export const ERRORS_IDS = [ERRORS_ID, 'io.github.mcp-ext/errors-v2'] as const;

const LEAKS: readonly RegExp[] = [
  /\n\s+at .+:\d+:\d+/, // a stack frame
  /(?:^|[\s"'(])\/(?:home|Users|usr|var|etc|tmp|opt|root|srv)\//, // an absolute POSIX path
  /[A-Za-z]:\\(?:Users|Windows|Program Files)/, // a Windows path
  /\b(?:SELECT|INSERT|UPDATE|DELETE)\b.+\b(?:FROM|INTO|SET|WHERE)\b/, // SQL
];

/** A tool the kit can fail on purpose: it declares a typed property. */
function breakable(ctx: CheckContext): { tool: ListedTool; args: Record<string, unknown>; field: string } {
  for (const tool of ctx.server.tools) {
    const broken = invalidArguments(tool);
    if (broken) return { tool, ...broken };
  }
  return ctx.skip('no tool declares a typed property to send a wrong type for');
}

/** Calls with wrong arguments; a JSON-RPC error is answered as such (the SDK may refuse first). */
async function failingCall(ctx: CheckContext, negotiate: boolean): Promise<Record<string, unknown>> {
  const { tool, args } = breakable(ctx);
  const probe = await ctx.connect(negotiate ? undefined : {});
  try {
    return await probe.callTool(tool.name, args);
  } catch (error) {
    if (error instanceof WireError) {
      ensure(
        error.code === -32602,
        `${tool.name} with a wrong argument type: JSON-RPC error ${String(error.code)}, expected a tool result with isError (or -32602)`,
      );
      return { jsonRpcError: error.code };
    }
    throw error;
  }
}

/** The server half of `@ext/errors` (SPEC: packages/errors/SPEC.md). */
export const errorsSuite: ExtensionSuite = {
  extension: 'errors',
  ids: ERRORS_IDS,
  spec: 'packages/errors/SPEC.md',
  checks: [
    {
      id: 'errors/structured-on-failure',
      requirement: 'ERR-3',
      level: 'MUST',
      title:
        'a failed call of a client that negotiated errors carries a structured error valid against error.schema.json',
      async run(ctx) {
        const result = await failingCall(ctx, true);
        if ('jsonRpcError' in result)
          return ctx.skip('the SDK refused the arguments before the tool ran (-32602), so no tool result to inspect');
        ensure(result.isError === true, `expected isError: true, got ${describe(result)}`);
        const meta = isRecord(result._meta) ? result._meta[ctx.id ?? ''] : undefined;
        ensure(meta !== undefined, `result._meta lacks "${ctx.id ?? ''}": ${describe(result._meta)}`);
        ctx.expectSeedShape(meta, 'error', undefined, 'the structured error');
        ensure(
          isRecord(meta) && meta.category === 'invalid_input',
          `wrong argument type must be category invalid_input, got ${describe(isRecord(meta) ? meta.category : meta)}`,
        );
      },
    },
    {
      id: 'errors/readable-text',
      requirement: 'ERR-2',
      level: 'MUST',
      title: 'a failed call is a CallToolResult with isError and a text block a person can read',
      async run(ctx) {
        const result = await failingCall(ctx, true);
        if ('jsonRpcError' in result) return ctx.skip('the SDK refused the arguments before the tool ran (-32602)');
        ensure(result.isError === true, 'expected isError: true');
        ensure(firstText(result).trim() !== '', `the first text block is empty: ${describe(result.content)}`);
      },
    },
    {
      id: 'errors/no-internals',
      requirement: 'ERR-6',
      level: 'MUST',
      title: 'error text and structured error leak no stack traces, file paths or SQL',
      async run(ctx) {
        const result = await failingCall(ctx, true);
        const text = JSON.stringify(result);
        const leak = LEAKS.find((pattern) => pattern.test(text));
        ensure(leak === undefined, `the failure leaks internals (matches ${String(leak)}): ${describe(text)}`);
      },
    },
    {
      id: 'errors/degrades-without-negotiation',
      requirement: 'ERR-4',
      level: 'MUST',
      title: 'a client that did not negotiate errors gets a plain MCP error result without the structured key',
      async run(ctx) {
        const result = await failingCall(ctx, false);
        if ('jsonRpcError' in result) return;
        ensure(result.isError === true, 'expected isError: true');
        const meta = isRecord(result._meta) ? result._meta : {};
        const leaked = ERRORS_IDS.filter((id) => id in meta);
        ensure(leaked.length === 0, `result._meta carries ${leaked.join(', ')} for a client that never advertised it`);
      },
    },
    {
      id: 'errors/tool-failure-shape',
      requirement: 'ERR-31',
      level: 'MUST',
      title: 'a SEP-3313 toolFailure key, when sent, has the draft shape and classes a wrong argument as capability',
      async run(ctx) {
        // The draft has no negotiation: a client that declares nothing is the draft-only client.
        const result = await failingCall(ctx, false);
        if ('jsonRpcError' in result) return ctx.skip('the SDK refused the arguments before the tool ran (-32602)');
        const failure = isRecord(result._meta) ? result._meta[TOOL_FAILURE_KEY] : undefined;
        if (failure === undefined)
          return ctx.skip(`the server does not send ${TOOL_FAILURE_KEY} (SEP-3313 is optional)`);
        const problems = toolFailureViolations(failure);
        ensure(problems.length === 0, `${TOOL_FAILURE_KEY}: ${problems.join('; ')}`);
        ensure(
          isRecord(failure) && failure.class === 'capability',
          `a wrong argument type must be class capability, got ${describe(isRecord(failure) ? failure.class : failure)}`,
        );
      },
    },
    {
      id: 'errors/tool-failure-agrees',
      requirement: 'ERR-35',
      level: 'MUST',
      title: 'a result carrying both the structured error and the SEP-3313 key gives one answer',
      async run(ctx) {
        const result = await failingCall(ctx, true);
        if ('jsonRpcError' in result) return ctx.skip('the SDK refused the arguments before the tool ran (-32602)');
        const meta = isRecord(result._meta) ? result._meta : {};
        const ours = meta[ctx.id ?? ''];
        const failure = meta[TOOL_FAILURE_KEY];
        if (failure === undefined || !isRecord(ours))
          return ctx.skip(`the result does not carry both ${ctx.id ?? 'the structured error'} and ${TOOL_FAILURE_KEY}`);
        ensure(isRecord(failure), `${TOOL_FAILURE_KEY} must be a JSON object, got ${describe(failure)}`);
        const expected = CLASS_OF_CATEGORY[String(ours.category)];
        ensure(
          failure.class === expected,
          `category ${describe(ours.category)} is class ${describe(expected)}, but ${TOOL_FAILURE_KEY} says ${describe(failure.class)}`,
        );
        const id = isRecord(ours.details) ? ours.details.correlation_id : undefined;
        ensure(
          id === undefined || failure.correlationId === id,
          `details.correlation_id ${describe(id)} differs from correlationId ${describe(failure.correlationId)}`,
        );
      },
    },
    {
      id: 'errors/method-failure-code',
      requirement: 'ERR-14',
      level: 'MUST',
      title: 'a failing extension method answers -32602 (invalid_input) or -31000 with the structured error as data',
      async run(ctx) {
        // A method of this very extension family that cannot exist: every
        // server answers -32601; what we check is that errors-aware servers
        // do not invent codes in the reserved range for their own methods.
        const probe = await ctx.connect();
        const method = Object.keys(ctx.server.extensions).find(
          (id) => id.startsWith('io.github.mcp-ext/') && !ERRORS_IDS.includes(id as (typeof ERRORS_IDS)[number]),
        );
        if (method === undefined) return ctx.skip('the server advertises no other extension whose methods could fail');
        try {
          await probe.request(`${method}/conformance-no-such-verb`, {});
        } catch (error) {
          ensure(error instanceof WireError, `expected a JSON-RPC error, got ${String(error)}`);
          ensure(
            error.code === -32601 || error.code === -32602 || error.code === -31000,
            `unknown method answered ${String(error.code)}`,
          );
          if (error.code !== -32601) ctx.expectSeedShape(error.data, 'error', undefined, 'the error data');
          return;
        }
        ensure(false, `${method}/conformance-no-such-verb answered with a result`);
      },
    },
  ],
};
