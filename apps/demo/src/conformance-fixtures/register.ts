/**
 * The tools, resources and prompts the official MCP conformance suite calls
 * (`@modelcontextprotocol/conformance` 0.1.16 for the 2025 era, and the
 * 2026-07-28 line's own fixtures from the other files of this folder, the Tasks
 * extension's included), added to a tracker server so the suite runs
 * against the composed extension stack.
 * Tools go through the extension pipeline; `test_sampling` asks through the
 * SDK's own request context, which the pipeline hands through.
 */
import type { ExtendedServer } from '@ext/core';
import type { McpServer } from '@modelcontextprotocol/server';
import { registerInputRequiredFixtures } from './input-required.js';
import { acceptSubscriptions, registerPrompts, registerResources } from './resources.js';
import { registerStatelessFixtures } from './stateless.js';
import { registerTaskFixtures } from './tasks.js';
import { registerConformanceTools } from './tools.js';

/** Capabilities the fixtures need beyond what the tracker declares. */
const CONFORMANCE_CAPABILITIES = { logging: {}, completions: {}, resources: { subscribe: true } } as const;

/** Registers the conformance suite's fixtures, and the capabilities they need, on one server instance. */
export function registerConformanceFixtures(server: McpServer, extended: ExtendedServer): void {
  server.server.registerCapabilities(CONFORMANCE_CAPABILITIES);
  // The suite lists tools, resources and prompts in the order they are registered here.
  registerConformanceTools(extended);
  registerResources(server);
  registerPrompts(server);
  registerInputRequiredFixtures(server, extended);
  registerStatelessFixtures(extended);
  registerTaskFixtures(extended);
  acceptSubscriptions(server);
}
