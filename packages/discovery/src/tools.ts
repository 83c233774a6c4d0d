/** `recommend_servers`: the `recommend` method served as a tool too, for clients that can only call tools. */
import { registerMethodTools } from '@ext/core/kit';
import { type ExtendedServer, type ToolInfo } from '@ext/core';
import * as z from 'zod';
import { DISCOVERY_PACKAGE, MAX_CAPABILITY_LENGTH, type Recommendation } from './schema.js';

/** The tool name of {@link registerDiscoveryTools}. */
export const DISCOVERY_TOOL_NAME = 'recommend_servers';

/**
 * Serves `<id>/recommend` as the tool `recommend_servers` too, for clients
 * that can only call tools (DISC-13). It runs the method's own handler.
 */
export function registerDiscoveryTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  return registerMethodTools(server, DISCOVERY_PACKAGE, [
    {
      verb: 'recommend',
      name: DISCOVERY_TOOL_NAME,
      description:
        'Recommends other MCP servers for a capability this server lacks, ranked, with how to connect and authenticate. Answered from a local index: the query is not sent anywhere.',
      inputSchema: z.object({
        capability_needed: z
          .string()
          .min(1)
          .max(MAX_CAPABILITY_LENGTH)
          .describe('The capability needed, in a few words ("design mockups").'),
        max_results: z.number().int().min(1).optional().describe('How many recommendations at most.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      summary: (result) => {
        const list = Array.isArray(result.recommendations) ? (result.recommendations as Recommendation[]) : [];
        if (list.length === 0) return 'No server found for this capability.';
        return `Recommended: ${list.map((entry) => `${entry.server_name} (${entry.match_confidence})`).join(', ')}.`;
      },
    },
  ]);
}
