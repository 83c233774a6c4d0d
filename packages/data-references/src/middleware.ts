/** The tool-call middleware: `result._meta[<id>]` goes only to clients that negotiated the extension. */
import type { ToolMiddleware, ToolResult } from '@ext/core';
import { DATA_REFERENCES_ID } from './schema.js';

function stripUnnegotiated(result: ToolResult): ToolResult {
  if (result._meta?.[DATA_REFERENCES_ID] === undefined) return result;
  const { [DATA_REFERENCES_ID]: _dropped, ...rest } = result._meta;
  const { _meta: _old, ...withoutMeta } = result;
  return Object.keys(rest).length === 0 ? withoutMeta : { ...withoutMeta, _meta: rest };
}

/** Drops the references entry from the results of clients that did not negotiate it (they keep the `resource_link`). */
export const negotiatedOnly: ToolMiddleware = async (_call, ctx, next) => {
  const result = await next();
  return ctx.negotiated(DATA_REFERENCES_ID) === undefined ? stripUnnegotiated(result) : result;
};
