/** This extension's `_meta` entries: a tool's declaration and a result's report, read leniently, and the report written. */
import { isRecord, lazyValidator } from '@ext/core/kit';
import { CostResultMetaSchema, CostToolMetaSchema, type CostResultMeta, type CostToolMeta } from './schema.js';

// Compiled on first use, so importing the package does no work.
const toolMetaValidator = lazyValidator(CostToolMetaSchema);
const resultMetaValidator = lazyValidator(CostResultMetaSchema);

/** A tool's cost metadata as a client reads it off `Tool._meta[id]`; `undefined` when absent or malformed. Unknown fields are ignored. */
export function readToolCost(toolMeta: unknown, id: string): CostToolMeta | undefined {
  if (!isRecord(toolMeta)) return undefined;
  const entry = toolMeta[id];
  return toolMetaValidator().Check(entry) ? entry : undefined;
}

/** The cost entry of a tool result; `undefined` when absent or malformed. */
export function readResultCost(result: unknown, id: string): CostResultMeta | undefined {
  if (!isRecord(result) || !isRecord(result._meta)) return undefined;
  const entry = result._meta[id];
  return resultMetaValidator().Check(entry) ? entry : undefined;
}
