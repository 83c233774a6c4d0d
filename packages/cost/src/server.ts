/**
 * The server half of `@ext/cost`: assembles the descriptor from the tools'
 * declarations, the cost middleware and the status method.
 */
import type { ServerExtension } from '@ext/core';
import { statusMethod } from './methods.js';
import { costMiddleware } from './middleware.js';
import { resolveOptions, type CostServerOptions } from './options.js';
import { COST_ID, COST_PACKAGE, COST_WIRE_VERSION, CostSettingsSchema } from './schema.js';
import { ToolCosts } from './tool-costs.js';

export type { CostServerOptions } from './options.js';
export { registerCostTools, statusSummary, COST_STATUS_TOOL } from './tools.js';

/**
 * The server half of cost transparency. Tools declare their cost, latency,
 * quota and rate limits in `Tool._meta["io.github.mcp-ext/cost"]`; calls are
 * counted per principal with the store's atomic counters and refused with
 * `QUOTA_EXHAUSTED` / `RATE_LIMIT_EXCEEDED` (`rate_limited`) beyond them;
 * `requires_approval` tools ask a person through the confirmation gate.
 */
export function costServer(options: CostServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const costs = new ToolCosts();
  return {
    side: 'server',
    keepsCallerState: true,
    name: COST_PACKAGE,
    ids: [COST_ID],
    settings: { version: COST_WIRE_VERSION },
    peerSettings: CostSettingsSchema,
    stage: 'cost',
    middleware: costMiddleware(config, costs),
    methods: { status: statusMethod(config, costs) },
    toolMeta(tool) {
      // Validates the author's entry at registration, so a mistake fails at startup.
      const meta = costs.register(tool);
      if (meta === undefined) return undefined;
      return JSON.parse(JSON.stringify(meta)) as Record<string, unknown>;
    },
  };
}
