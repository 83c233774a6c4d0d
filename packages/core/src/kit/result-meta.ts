/** An extension's entry in a result's `_meta`, set or taken out, with every other entry kept. */
import type { ToolResult } from '../contract/types.js';

/**
 * A copy of `result` with `_meta[id]` set to `value`; with `value`
 * `undefined`, a copy without `_meta[id]` (and without `_meta` once it is
 * empty), or `result` itself when it has no such entry.
 */
export function withResultMeta(result: ToolResult, id: string, value: unknown): ToolResult {
  const meta = result._meta;
  if (value !== undefined) return { ...result, _meta: { ...meta, [id]: value } };
  if (meta === undefined || !Object.hasOwn(meta, id)) return result;
  const { [id]: _removed, ...rest } = meta;
  const copy: ToolResult = { ...result };
  if (Object.keys(rest).length > 0) copy._meta = rest;
  else delete copy._meta;
  return copy;
}
