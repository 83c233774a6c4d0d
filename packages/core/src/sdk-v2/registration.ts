/**
 * The v2 McpServer's own ways to serve a tool, taken over once it is
 * extended: `registerTool` refused outside the adapter (core SPEC,
 * CORE-27), and `tools/call` wrapped so that a `WireError` from the pipeline
 * leaves as the JSON-RPC error it is.
 */
import {
  ProtocolError,
  type CallToolRequest,
  type CallToolResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ConfigurationError, WireError, toWireError } from '../contract/errors.js';
import { rawRegistration } from '../pipeline/server-adapter.js';
import { interceptHandlerRegistration, replaceRegisterTool, type Server } from './sdk-patches.js';

/** What a handler threw, as the SDK's protocol error (through core's `toWireError`). */
export function toProtocolError(error: unknown): ProtocolError {
  const wire = toWireError(error);
  return new ProtocolError(wire.code, wire.message, wire.data);
}

type ToolsCallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult>;

/**
 * McpServer turns everything a tool callback throws into an `isError`
 * result, but a `WireError` from the pipeline (e.g. -32021) must stay a
 * JSON-RPC error. The tool callback parks it by request context, and this
 * wrapper around McpServer's own `tools/call` handler rethrows it. The wrap
 * is installed where McpServer registers that handler (lazily, on its first
 * tool), so everything else McpServer does on `tools/call` is kept.
 */
export function routeWireErrors(inner: Server, allowed: () => boolean): WeakMap<ServerContext, WireError> {
  const parked = new WeakMap<ServerContext, WireError>();
  try {
    inner.assertCanSetRequestHandler('tools/call');
  } catch (cause) {
    throw new ConfigurationError(
      'TOOLS_REGISTERED_TOO_EARLY',
      `extendServer must be called before any tool is registered on the McpServer (${String(cause)})`,
    );
  }
  const wrap =
    (handler: ToolsCallHandler): ToolsCallHandler =>
    async (request, ctx) => {
      const result = await handler(request, ctx);
      const wire = parked.get(ctx);
      if (wire !== undefined) throw toProtocolError(wire);
      return result;
    };
  interceptHandlerRegistration(inner, (next) => (method, ...rest) => {
    if (method === 'tools/call' && !allowed()) throw rawRegistration('server.server.setRequestHandler("tools/call")');
    if (method === 'tools/call' && typeof rest[0] === 'function') rest[0] = wrap(rest[0] as ToolsCallHandler);
    next(method, ...rest);
  });
  return parked;
}

/**
 * Closes the raw McpServer's ways to register a tool once it is extended
 * (its `registerTool`, and `tools/call` on the low-level server): each
 * throws at once. Returns the original `registerTool` and a guard under
 * which the adapter itself registers.
 */
export function guardRawRegistration(server: McpServer): {
  readonly register: McpServer['registerTool'];
  readonly allowed: () => boolean;
} {
  const original = replaceRegisterTool(server, () => {
    throw rawRegistration('McpServer.registerTool');
  });
  let depth = 0;
  const register = ((...args: unknown[]) => {
    depth++;
    try {
      return original(...args);
    } finally {
      depth--;
    }
  }) as McpServer['registerTool'];
  return { register, allowed: () => depth > 0 };
}
