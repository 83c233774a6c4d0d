/**
 * The same tracker on the v1 SDK (`@modelcontextprotocol/sdk`): the same
 * tools and the same composition, attached through `@ext/core/sdk-v1`. v1
 * speaks the 2025 protocol era only (capabilities in `initialize`).
 */
import { extendServer } from '@ext/core/sdk-v1';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SERVER_INFO, SERVER_INSTRUCTIONS, trackerEventsOf } from './compose.js';
import type { TrackerServerOptions } from './server.js';
import { registerTrackerTools } from '../tools/tools.js';

export type TrackerServerV1Options = Omit<TrackerServerOptions, 'extend'>;

/** Builds one v1 tracker server instance, sharing `composed` and `store` with any others. */
export function createTrackerServerV1(options: TrackerServerV1Options): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS });
  const extended = extendServer(server, options.composed, { store: options.store, logger: options.logger });
  registerTrackerTools(extended, { ...options, events: options.events ?? trackerEventsOf(options.composed) });
  return server;
}
