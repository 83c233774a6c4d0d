/** The extension methods of a composition, served on a v2 McpServer through one fallback handler. */
import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import type { ComposedServer, MethodHandler, RequestContext } from '../contract/extension.js';
import { invalidInputError } from '../kit/input.js';
import { jsonPointer } from '../kit/pointer.js';
import { asRecord } from '../kit/records.js';
import { perObject } from '../pipeline/server-adapter.js';
import { toProtocolError } from './registration.js';
import { gateFallbackRequestHandler, type Fallback, type Server } from './sdk-patches.js';

// The extension methods of a composition, by method name.
const methodTable = perObject(
  (composed: ComposedServer): ReadonlyMap<string, MethodHandler> =>
    new Map(composed.methods.filter((entry) => entry.named !== true).map((entry) => [entry.method, entry.handler])),
);

// Named methods: the request's params reach the extension as sent, which checks them itself, naming the field at fault.
const ANY_PARAMS = {
  '~standard': { version: 1, vendor: '@ext/core', validate: (value: unknown) => ({ value }) },
} as const;

/**
 * On 2026-07-28 the SDK lifts `params.inputResponses` (the multi-round-trip
 * vocabulary) into its request context; a named method that takes it as a
 * parameter (`tasks/update`) gets it back.
 */
function withInputResponses(params: Record<string, unknown>, ctx: ServerContext): Record<string, unknown> {
  if ('inputResponses' in params) return params;
  const { inputResponses: lifted, droppedInputResponseKeys: dropped } = ctx.mcpReq as {
    inputResponses?: unknown;
    droppedInputResponseKeys?: readonly string[];
  };
  // The SDK drops entries that are not result objects; a method taking the answers refuses them instead (CORE-46).
  const [key] = dropped ?? [];
  if (key !== undefined) {
    throw invalidInputError(
      {
        field: 'inputResponses',
        pointer: jsonPointer('inputResponses', key),
        message: `${ctx.mcpReq.method}: params.inputResponses["${key}"] must be the result object of the input request`,
      },
      'Answer each input request with its result object (e.g. an ElicitResult).',
    );
  }
  return lifted === undefined ? params : { ...params, inputResponses: lifted };
}

type RegisterNamed = (
  method: string,
  schemas: { params: typeof ANY_PARAMS },
  handler: (params: Record<string, unknown>, ctx: ServerContext) => Promise<unknown>,
) => void;

/**
 * Serves the composition's named methods (CORE-40) by their own names. The
 * SDK answers a method name the specification once defined (`tasks/get`)
 * with -32601 unless a handler is registered for that very name with a
 * params schema, so each gets one; there are few, unlike the `<id>/<verb>`
 * methods of {@link serveMethods}.
 */
export function serveNamedMethods(
  inner: Server,
  composed: ComposedServer,
  contextFor: (ctx: ServerContext) => RequestContext,
): void {
  const register = (inner.setRequestHandler as unknown as RegisterNamed).bind(inner);
  for (const { method, handler, named } of composed.methods) {
    if (named !== true) continue;
    register(method, { params: ANY_PARAMS }, async (params, ctx) => {
      try {
        return await composed.runMethod(method, withInputResponses({ ...params }, ctx), contextFor(ctx), handler);
      } catch (error) {
        throw toProtocolError(error);
      }
    });
  }
}

/**
 * Serves the composition's methods through one fallback handler that looks
 * the method up, instead of one `setRequestHandler` per method: the
 * 2026-07-28 era builds a server for every request, and registering each
 * extension method (16 with every package composed) on each of them cost
 * more than looking one up. A handler the author registers for a method
 * still wins (the SDK consults its own table first); a fallback installed
 * before or after this one still answers the methods the composition does
 * not serve.
 *
 * The fallback is offered only while a method the composition serves is
 * being dispatched: for any other method the SDK then finds no handler and
 * answers -32601 itself, before dispatch, which on 2026-07-28 HTTP is a
 * 404 (core SPEC, CORE-28), as from a server with nothing composed.
 */
export function serveMethods(
  inner: Server,
  composed: ComposedServer,
  contextFor: (ctx: ServerContext) => RequestContext,
  dispatching: () => string | undefined,
): void {
  const table = methodTable(composed);
  if (table.size === 0) return;
  // `other` reads the fallback the application set, before or after this one.
  const ours =
    (other: () => Fallback | undefined): Fallback =>
    async (request, ctx) => {
      const handler = table.get(request.method);
      if (handler === undefined) {
        const app = other();
        if (app !== undefined) return app(request, ctx);
        throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
      }
      try {
        // Extension payloads are validated by the extension itself (TypeBox, at its boundary).
        return await composed.runMethod(request.method, { ...asRecord(request.params) }, contextFor(ctx), handler);
      } catch (error) {
        throw toProtocolError(error);
      }
    };
  gateFallbackRequestHandler(inner, ours, () => {
    const method = dispatching();
    // Outside a dispatch (someone reading the property) the whole fallback is the honest answer.
    return method === undefined || table.has(method);
  });
}
