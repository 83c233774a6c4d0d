/**
 * Serves SEP-2663's method names on an extended SDK v2 server. The core
 * serves an extension's methods as `<id>/<verb>`; the Tasks methods are
 * plain `tasks/get`, `tasks/update` and `tasks/cancel`, which the SDK only
 * dispatches to a handler registered for that name with a params schema.
 * Each such handler hands the request to the composed
 * `io.modelcontextprotocol/tasks/<verb>` method, which runs as every
 * extension method does (caller check, tracing, wire errors).
 */
import { ErrorCodes, WireError } from '@ext/core';
import { TASKS_ID, TASKS_METHODS } from './schema.js';

type Forward = (request: { method: string; params: Record<string, unknown> }, ctx: unknown) => Promise<unknown>;
type Register = (
  method: string,
  schemas: { params: unknown },
  handler: (params: Record<string, unknown>, ctx: unknown) => Promise<unknown>,
) => void;

/** An SDK v2 `McpServer` (only its low-level `server` is used). */
export interface TaskMethodHost {
  readonly server: object;
}

// The params reach the extension as sent: it checks them itself, naming the field at fault.
const ANY_PARAMS = {
  '~standard': { version: 1, vendor: '@ext/tasks', validate: (value: unknown) => ({ value }) },
};

/**
 * On 2026-07-28 the SDK lifts `params.inputResponses` (multi-round-trip
 * vocabulary) into its request context; `tasks/update` needs it back.
 */
function withInputResponses(params: Record<string, unknown>, ctx: unknown): Record<string, unknown> {
  if ('inputResponses' in params) return params;
  const lifted = (ctx as { mcpReq?: { inputResponses?: unknown } } | undefined)?.mcpReq?.inputResponses;
  return lifted === undefined ? params : { ...params, inputResponses: lifted };
}

/**
 * Serves `tasks/get`, `tasks/update` and `tasks/cancel` on `mcp`, an SDK v2
 * `McpServer` on which `extendServer` composed `tasksServer()`. Call it for
 * every server the factory builds, after `extendServer`. `tasks/result` and
 * `tasks/list`, which SEP-2663 removed, stay unknown methods (-32601, TASK-13).
 */
export function serveTaskMethods(mcp: TaskMethodHost): void {
  const inner = mcp.server as { fallbackRequestHandler?: unknown; setRequestHandler?: unknown };
  const composed = inner.fallbackRequestHandler;
  if (typeof composed !== 'function' || typeof inner.setRequestHandler !== 'function') {
    throw new WireError(
      ErrorCodes.InternalError,
      'serveTaskMethods: pass an SDK v2 McpServer after extendServer composed tasksServer()',
    );
  }
  const forward = composed.bind(inner) as Forward;
  const register = (inner.setRequestHandler as Register).bind(inner);
  for (const [verb, method] of Object.entries(TASKS_METHODS)) {
    register(method, { params: ANY_PARAMS }, (params, ctx) =>
      forward({ method: `${TASKS_ID}/${verb}`, params: withInputResponses(params, ctx) }, ctx),
    );
  }
}
