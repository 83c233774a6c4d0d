/** The status method as a tool, `get_cost_status`, for clients that can only call tools, and its readable summary. */
import { ConfigurationError, type ExtendedServer, type ToolInfo, type ToolResult } from '@ext/core';
import { describeCost } from './describe.js';
import { COST_PACKAGE, type CostStatusResult } from './schema.js';

/** The tool name of {@link registerCostTools}. */
export const COST_STATUS_TOOL = 'get_cost_status';

/** One readable line per tool: what a call takes and what the caller has left. */
export function statusSummary(status: CostStatusResult): string {
  if (status.tools.length === 0) return 'No tool of this server declares a cost.';
  return status.tools
    .map((entry) => {
      const meta = { cost: entry.cost, ...(entry.latency === undefined ? {} : { latency: entry.latency }) };
      return describeCost({ subject: `"${entry.tool}"`, meta, quota: entry.quota });
    })
    .join('\n');
}

/**
 * Serves `<id>/status` as the tool `get_cost_status` too, for clients that
 * can only call tools (COST-14): no arguments, the caller's standing for
 * every tool that declares a cost, as `structuredContent` and as one
 * sentence per tool. It runs the method's own handler and uses no quota.
 */
export function registerCostTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  const method = server.composed.methods.find(
    (entry) => entry.extension === COST_PACKAGE && entry.method === `${entry.id}/status`,
  );
  if (method === undefined) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      `registerCostTools: ${COST_PACKAGE} is not composed into this server`,
    );
  }
  const tool = server.registerTool(
    COST_STATUS_TOOL,
    {
      description:
        'Tells what each tool of this server costs, how long it takes, and how much of your quota and rate limits is left. Uses no quota.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (_args, ctx): Promise<ToolResult> => {
      const status = (await method.handler({}, ctx)) as CostStatusResult;
      return { content: [{ type: 'text', text: statusSummary(status) }], structuredContent: status };
    },
  );
  return [tool];
}
