/** What a client reads from the server: a result's cost report, a listed tool's declaration, the caller's standing. */
import { lazyValidator } from '@ext/core/kit';
import { type ExtendedClient } from '@ext/core';
import { readResultCost, readToolCost } from './entries.js';
import {
  COST_ID,
  CostStatusResultSchema,
  type CostResultMeta,
  type CostStatusResult,
  type CostToolMeta,
} from './schema.js';

/** What a result says the call used and what the caller has left; `undefined` when the server sent no (valid) entry. */
export function getCostInfo(result: unknown): CostResultMeta | undefined {
  return readResultCost(result, COST_ID);
}

/** A listed tool's cost declaration (`Tool._meta[COST_ID]`); `undefined` when it has none or it is malformed. */
export function getToolCost(tool: { readonly _meta?: Record<string, unknown> | undefined }): CostToolMeta | undefined {
  return readToolCost(tool._meta, COST_ID);
}

const statusValidator = lazyValidator(CostStatusResultSchema);

/**
 * The caller's standing for the named tools (default: every tool that
 * declares a cost), from `COST_ID/status`; no quota is used. `undefined`
 * when the server does not negotiate the extension.
 */
export async function getCostStatus(
  client: ExtendedClient,
  tools?: readonly string[],
): Promise<CostStatusResult | undefined> {
  const negotiated = client.negotiated(COST_ID);
  if (negotiated === undefined) return undefined;
  const answer = await client.request(`${negotiated.id}/status`, tools === undefined ? {} : { tools: [...tools] });
  if (!statusValidator().Check(answer)) throw new TypeError(`${negotiated.id}/status answered a malformed result`);
  return answer;
}
