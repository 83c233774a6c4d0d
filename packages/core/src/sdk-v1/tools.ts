/**
 * Tools on an extended v1 McpServer: registered through the raw server and
 * recorded with the composition, every call run through the pipeline, and a
 * `WireError` the pipeline raised sent as the JSON-RPC error it is.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { createCallContext } from '../pipeline/context.js';
import { WireError } from '../contract/errors.js';
import type { ToolHandler } from '../contract/extension.js';
import type { ToolConfig } from '../contract/host.js';
import { asRecord } from '../kit/records.js';
import type { Logger } from '../telemetry/logger.js';
import { extraCallParams, perObject, toolInfoOf, withToolFields } from '../pipeline/server-adapter.js';
import type { StandardSchemaV1, ToolCall, ToolInfo, ToolResult } from '../contract/types.js';
import { validateArguments } from '../pipeline/validate.js';
import { installedRequestHandler } from './sdk-patches.js';
import { callMeta, requestContext } from './request-context.js';
import type { Extra, ServerState } from './state.js';

// A server built per request or per session registers the same schema object
// again and again: render it once. Consumers only read the result.
const renderedJsonSchema = perObject((schema: object, logger: Logger): Record<string, unknown> | undefined => {
  try {
    return z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' });
  } catch (error) {
    logger.warn('could not render a tool schema as JSON Schema', { error: String(error) });
    return undefined;
  }
});

function toJsonSchema(schema: StandardSchemaV1 | undefined, logger: Logger): Record<string, unknown> | undefined {
  // Only zod v4 schemas can be rendered here; v1 also accepts zod v3 ones, which simply get no JSON Schema.
  if (schema === undefined || !('_zod' in schema)) return undefined;
  return renderedJsonSchema(schema, logger);
}

// A WireError raised by the pipeline, parked under the request's signal until McpServer hands back control.
const parked = new WeakMap<AbortSignal, WireError>();
const PARKED_RESULT: CallToolResult = { content: [], isError: true };
const toolsWrapped = new WeakSet<McpServer>();

// The SDK's schema drops params it does not know; a draft's new `tools/call` field must reach extensions.
const LooseCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.loose(),
});

/**
 * Wraps McpServer's `tools/call`: calls of our tools go straight to the
 * pipeline, which validates arguments itself under the errors stage (so a
 * bad argument becomes a structured error naming the field, not the SDK's
 * plain "Input validation error"); a parked `WireError` leaves as a JSON-RPC
 * error. Other tools keep McpServer's handling.
 */
function wrapToolsCall(state: ServerState): void {
  const original = installedRequestHandler(state.server.server, 'tools/call');
  state.server.server.setRequestHandler(LooseCallToolRequestSchema, async (request, extra) => {
    const ours = state.tools.get(request.params.name);
    const result = ours
      ? await ours(asRecord(request.params.arguments) ?? {}, extra, extraCallParams(request.params))
      : await original(request, extra);
    const wire = parked.get(extra.signal);
    if (wire) {
      parked.delete(extra.signal);
      throw new McpError(wire.code, wire.message, wire.data);
    }
    return result as CallToolResult;
  });
  const listed = installedRequestHandler(state.server.server, 'tools/list');
  state.server.server.setRequestHandler(
    ListToolsRequestSchema,
    async (request, extra) => withToolFields(state.composed, await listed(request, extra)) as ListToolsResult,
  );
}

function toolRunner(
  state: ServerState,
  info: ToolInfo,
  handler: ToolHandler,
  inputSchema: StandardSchemaV1 | undefined,
) {
  return async (
    args: Record<string, unknown>,
    extra: Extra,
    params?: Record<string, unknown>,
  ): Promise<CallToolResult> => {
    const ctx = createCallContext(requestContext(state, extra), info);
    const call: ToolCall = { name: info.name, arguments: args, meta: callMeta(extra._meta), params };
    const validate = (input: Record<string, unknown>) => validateArguments(info.name, inputSchema, input);
    try {
      const result: ToolResult = await state.composed.runToolCall(call, ctx, handler, validate);
      return result as CallToolResult;
    } catch (error) {
      // What McpServer itself answers when a tool throws (degradation without @ext/errors).
      if (!WireError.isInstance(error)) {
        return {
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        };
      }
      parked.set(extra.signal, error);
      return PARKED_RESULT;
    }
  };
}

/** Registers a tool whose calls run through the pipeline (`ExtendedServer.registerTool`). */
export function registerTool(state: ServerState, name: string, config: ToolConfig, handler: ToolHandler): ToolInfo {
  const info = state.composed.internTool(toolInfoOf(name, config, (schema) => toJsonSchema(schema, state.logger)));
  const decorated = state.composed.decorateTool(info);
  const run = toolRunner(state, info, handler, config.inputSchema);
  state.tools.set(name, run);
  // McpServer calls `(args, extra)` when the tool has an input schema and `(extra)` alone otherwise.
  const callback = (args: unknown, extra?: Extra) =>
    extra === undefined ? run({}, args as Extra) : run(asRecord(args) ?? {}, extra);
  state.raw.register(
    name,
    {
      title: config.title,
      description: config.description,
      inputSchema: config.inputSchema as z.ZodType | undefined,
      outputSchema: config.outputSchema as z.ZodObject | undefined,
      annotations: decorated.annotations,
      _meta: Object.keys(decorated._meta).length > 0 ? decorated._meta : undefined,
    },
    callback,
  );
  state.composed.recordTool(info);
  // McpServer installs its tools/call handler with the first tool; wrap it once, right after.
  if (!toolsWrapped.has(state.server)) {
    state.raw.allowing(() => {
      wrapToolsCall(state);
    });
    toolsWrapped.add(state.server);
  }
  return info;
}
