/**
 * The v1 McpServer's own ways to serve a tool, closed once it is extended
 * (core SPEC, CORE-27): every tool then runs through the pipeline.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ConfigurationError } from '../contract/errors.js';
import { rawRegistration } from '../pipeline/server-adapter.js';
import { interceptHandlerRegistration, replaceToolRegistration } from './sdk-patches.js';
import { methodOf } from './shared.js';
import type { RawRegistration } from './state.js';

/**
 * Tools already registered on the McpServer would be served past the
 * pipeline: refuse to extend it (core SPEC, CORE-27). McpServer installs its
 * `tools/call` handler with its first tool (or at once, for a server made
 * with the `tools` capability), so an installed one is the sign.
 */
export function assertNoToolsYet(server: McpServer): void {
  try {
    server.server.assertCanSetRequestHandler('tools/call');
  } catch (cause) {
    throw new ConfigurationError(
      'TOOLS_REGISTERED_TOO_EARLY',
      `extendServer must be called before any tool is registered on the McpServer (${String(cause)})`,
    );
  }
}

/**
 * Closes the raw McpServer's ways to serve a tool once it is extended
 * (`registerTool`, `tool`, and `tools/call` on the low-level server): each
 * throws at once. Returns the original `registerTool` and a guard under
 * which the adapter itself installs handlers.
 */
export function guardRawRegistration(server: McpServer): RawRegistration {
  let depth = 0;
  const allowing = <T>(run: () => T): T => {
    depth++;
    try {
      return run();
    } finally {
      depth--;
    }
  };
  const original = replaceToolRegistration(server, (what) => (): never => {
    throw rawRegistration(what);
  });
  const register = ((...args: unknown[]) =>
    allowing(() => Reflect.apply(original, undefined, args) as unknown)) as McpServer['registerTool'];
  interceptHandlerRegistration(server.server, (next) => (schema, handler) => {
    if (methodOf(schema) === 'tools/call' && depth === 0)
      throw rawRegistration('server.server.setRequestHandler(CallToolRequestSchema)');
    next(schema, handler);
  });
  return { register, allowing };
}
