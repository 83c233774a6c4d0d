/**
 * The v1 McpServer's own ways to serve a tool, closed once it is extended
 * (core SPEC, CORE-27), and the handlers it installed, which the adapter
 * wraps: every tool then runs through the pipeline.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ConfigurationError } from '../contract/errors.js';
import { asRecord } from '../kit/records.js';
import { rawRegistration } from '../pipeline/server-adapter.js';
import type { Extra, RawRegistration } from './state.js';

/** A request handler as the SDK keeps it. */
type RawHandler = (request: unknown, extra: Extra) => Promise<unknown>;

/**
 * The handler v1 has installed for `method`. The SDK offers no accessor, and
 * McpServer turns every error thrown by a tool callback into an `isError`
 * result, so the adapter wraps the installed handler to let protocol errors
 * (e.g. -32021) through as JSON-RPC errors.
 */
export function installedHandler(server: McpServer['server'], method: string): RawHandler {
  const handlers: unknown = Reflect.get(server, '_requestHandlers');
  const handler: unknown = handlers instanceof Map ? handlers.get(method) : undefined;
  if (typeof handler !== 'function') {
    throw new ConfigurationError(
      'UNSUPPORTED_SDK',
      `@ext/core/sdk-v1: cannot find the ${method} handler of this @modelcontextprotocol/sdk version (supported: >=1.29.0 <2)`,
    );
  }
  return handler as RawHandler;
}

/** The method a v1 request schema is for (`shape.method.value`, zod v3 and v4 alike). */
function methodOf(schema: unknown): unknown {
  const shape = asRecord(asRecord(schema)?.shape);
  return asRecord(shape?.method)?.value;
}

/**
 * Tools already registered on the McpServer would be served past the
 * pipeline: refuse to extend it (core SPEC, CORE-27).
 */
export function assertNoToolsYet(server: McpServer): void {
  const registered = asRecord(Reflect.get(server, '_registeredTools')) ?? {};
  if (Object.keys(registered).length > 0 || Reflect.get(server, '_toolHandlersInitialized') === true) {
    throw new ConfigurationError(
      'TOOLS_REGISTERED_TOO_EARLY',
      `extendServer must be called before any tool is registered on the McpServer (already registered: ${Object.keys(registered).join(', ') || 'the tools/call handler'})`,
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
  const original = server.registerTool.bind(server);
  const setRequestHandler = server.server.setRequestHandler.bind(server.server);
  let depth = 0;
  const allowing = <T>(run: () => T): T => {
    depth++;
    try {
      return run();
    } finally {
      depth--;
    }
  };
  const register = ((...args: unknown[]) =>
    allowing(() => Reflect.apply(original, undefined, args) as unknown)) as McpServer['registerTool'];
  const refuse = (what: string) => (): never => {
    throw rawRegistration(what);
  };
  Object.defineProperty(server, 'registerTool', {
    value: refuse('McpServer.registerTool'),
    configurable: true,
    writable: true,
  });
  Object.defineProperty(server, 'tool', { value: refuse('McpServer.tool'), configurable: true, writable: true });
  const guarded = (schema: unknown, handler: unknown): void => {
    if (methodOf(schema) === 'tools/call' && depth === 0)
      throw rawRegistration('server.server.setRequestHandler(CallToolRequestSchema)');
    Reflect.apply(setRequestHandler, undefined, [schema, handler]);
  };
  Object.defineProperty(server.server, 'setRequestHandler', { value: guarded, configurable: true, writable: true });
  return { register, allowing };
}
