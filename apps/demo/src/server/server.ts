/**
 * The tracker as an MCP server on the v2 SDK: one instance a transport
 * builds, with the tracker's tools and the composition it shares with
 * every other instance (`compose.ts`).
 */
import type { ComposedServer, ExtendedServer, Logger, Store } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2';
import { McpServer } from '@modelcontextprotocol/server';
import { registerTrackerTools, type TrackerToolsOptions } from '../tools/tools.js';
import { SERVER_INFO, SERVER_INSTRUCTIONS, trackerEventsOf } from './compose.js';

export interface TrackerServerOptions extends TrackerToolsOptions {
  /** From {@link composeTracker}; made once and shared by every instance. */
  readonly composed: ComposedServer;
  /** Where tickets and the extensions' state live; shared by every instance. */
  readonly store: Store;
  readonly logger?: Logger | undefined;
  /** Registers more tools, resources or prompts on each instance (the conformance fixtures do). */
  readonly extend?: ((server: McpServer, extended: ExtendedServer) => void) | undefined;
}

/** Builds one tracker server instance (a transport may build many, all sharing `composed` and `store`). */
export function createTrackerServer(options: TrackerServerOptions): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS });
  const extended = extendServer(server, options.composed, { store: options.store, logger: options.logger });
  registerTrackerTools(extended, { ...options, events: options.events ?? trackerEventsOf(options.composed) });
  options.extend?.(server, extended);
  return server;
}
