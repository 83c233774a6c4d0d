/** Helpers the suites share: expected refusals of methods and tool calls, and reading structured errors. */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { CheckFailure, describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import { safeTools } from '../tools.js';
import type { CheckContext, ListedTool } from '../types.js';

/**
 * Calls `method` expecting a JSON-RPC error (CORE-15): code -32602 for
 * `invalid_input`, -31000 otherwise, `data` a structured error valid against
 * error.schema.json. Returns the structured error.
 */
export async function expectMethodError(
  ctx: CheckContext,
  probe: Probe,
  method: string,
  params: Record<string, unknown>,
  expected: { readonly category: string; readonly code?: string | undefined },
): Promise<Record<string, unknown>> {
  let answer: Record<string, unknown>;
  try {
    answer = await probe.request(method, params);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    const data = error.data;
    ctx.expectSeedShape(data, 'error', undefined, `the error data of ${method}`);
    ensure(isRecord(data), `${method}: error data is ${describe(data)}`);
    ensure(
      data.category === expected.category,
      `${method}: category ${describe(data.category)}, expected "${expected.category}"`,
    );
    if (expected.code !== undefined)
      ensure(data.code === expected.code, `${method}: code ${describe(data.code)}, expected "${expected.code}"`);
    const wantCode = expected.category === 'invalid_input' ? -32602 : -31000;
    ensure(error.code === wantCode, `${method}: JSON-RPC code ${String(error.code)}, expected ${String(wantCode)}`);
    return data;
  }
  throw new CheckFailure(
    `${method} answered ${describe(answer)} where it must fail with ${expected.code ?? expected.category}`,
  );
}

/** `params._meta[id]` from a tool result, or `undefined`. */
export function resultMeta(
  result: Record<string, unknown>,
  id: string | undefined,
): Record<string, unknown> | undefined {
  const meta = isRecord(result._meta) ? result._meta[id ?? ''] : undefined;
  return isRecord(meta) ? meta : undefined;
}

/** The first read-only tool whose arguments the kit can build (calling it changes nothing), or the check is skipped. */
export function readOnlyCall(ctx: CheckContext): { tool: ListedTool; args: Record<string, unknown> } {
  return safeTools(ctx.server.tools)[0] ?? ctx.skip('no read-only tool whose arguments the kit can build');
}

/** The identifier of `@ext/errors` (v1), whose structured errors many checks read. */
export const ERRORS_ID = 'io.github.mcp-ext/errors';

/**
 * A profile advertising the extension under test, plus errors when the
 * server composes it, so that refusals arrive as structured errors the
 * check can read. One profile per suite keeps one connection per suite.
 */
export function withErrors(
  ctx: CheckContext,
  fallbackId: string,
): { extensions: Record<string, Record<string, unknown>> } {
  const version = typeof ctx.settings.version === 'string' ? ctx.settings.version : '1.0';
  const extensions: Record<string, Record<string, unknown>> = { [ctx.id ?? fallbackId]: { version } };
  if (ERRORS_ID in ctx.server.extensions) extensions[ERRORS_ID] = { version: '1.0' };
  return { extensions };
}

/**
 * Asserts that a tool call was refused: `isError`, and, when the result
 * carries a structured error (errors composed and negotiated), that it is
 * valid against error.schema.json with the expected category and code.
 * Returns the structured error, if any.
 */
export function expectToolRefusal(
  ctx: CheckContext,
  result: Record<string, unknown>,
  expected: { readonly category: string; readonly code: string; readonly what: string },
): Record<string, unknown> | undefined {
  ensure(result.isError === true, `${expected.what} was not refused: ${describe(result)}`);
  const structured = resultMeta(result, ERRORS_ID);
  if (structured === undefined) return undefined;
  ctx.expectSeedShape(structured, 'error', undefined, `the structured error of ${expected.what}`);
  ensure(
    structured.category === expected.category && structured.code === expected.code,
    `${expected.what}: got ${describe(structured.category)} ${describe(structured.code)}, expected ${expected.category} ${expected.code}`,
  );
  return structured;
}

/** `details` of a structured error (`{}` when absent). */
export function detailsOf(structured: Record<string, unknown> | undefined): Record<string, unknown> {
  return isRecord(structured?.details) ? structured.details : {};
}
