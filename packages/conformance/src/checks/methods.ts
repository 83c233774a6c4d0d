import { WireError } from '@ext/core';
import { CheckFailure, describe, ensure, isRecord } from '../assert.js';
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
    ensure(data.category === expected.category, `${method}: category ${describe(data.category)}, expected "${expected.category}"`);
    if (expected.code !== undefined) ensure(data.code === expected.code, `${method}: code ${describe(data.code)}, expected "${expected.code}"`);
    const wantCode = expected.category === 'invalid_input' ? -32602 : -31000;
    ensure(error.code === wantCode, `${method}: JSON-RPC code ${String(error.code)}, expected ${String(wantCode)}`);
    return data;
  }
  throw new CheckFailure(`${method} answered ${describe(answer)} where it must fail with ${expected.code ?? expected.category}`);
}

/** `params._meta[id]` from a tool result, or `undefined`. */
export function resultMeta(result: Record<string, unknown>, id: string | undefined): Record<string, unknown> | undefined {
  const meta = isRecord(result._meta) ? result._meta[id ?? ''] : undefined;
  return isRecord(meta) ? meta : undefined;
}

/** The first read-only tool whose arguments the kit can build (calling it changes nothing), or the check is skipped. */
export function readOnlyCall(ctx: CheckContext): { tool: ListedTool; args: Record<string, unknown> } {
  return safeTools(ctx.server.tools)[0] ?? ctx.skip('no read-only tool whose arguments the kit can build');
}
