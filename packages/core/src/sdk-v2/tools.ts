/**
 * Tools on an extended v2 McpServer: listed with their JSON Schema but
 * validated by the pipeline, recorded with the composition, and every call
 * run through the pipeline with a `WireError` parked for the `tools/call`
 * wrapper to send as a JSON-RPC error.
 */
import type { CallToolResult, McpServer, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { createCallContext } from '../pipeline/context.js';
import { ConfigurationError, WireError } from '../contract/errors.js';
import type { ComposedServer, RequestContext, ToolHandler } from '../contract/extension.js';
import type { ToolConfig } from '../contract/host.js';
import { asRecord } from '../kit/records.js';
import { perObject, toolInfoOf } from '../pipeline/server-adapter.js';
import type { StandardSchemaV1, ToolInfo } from '../contract/types.js';
import { rememberTool } from '../pipeline/detached-call.js';
import { validateArguments } from '../pipeline/validate.js';

/** What registering and running a tool needs of the extended server. */
export interface ToolHost {
  readonly composed: ComposedServer;
  /** The McpServer's own `registerTool`, which only the adapter may use. */
  readonly register: McpServer['registerTool'];
  /** Where a `WireError` from the pipeline waits for the `tools/call` wrapper, by request. */
  readonly parked: WeakMap<ServerContext, WireError>;
  /** The `tools/call` params the core does not model, by request (`ToolCall.params`). */
  readonly callParams: WeakMap<ServerContext, Record<string, unknown>>;
  readonly contextFor: (ctx: ServerContext) => RequestContext;
}

interface JsonSchemaCarrier {
  readonly '~standard': {
    readonly jsonSchema?: { readonly input: (options: { target: string }) => Record<string, unknown> };
  };
}

// The 2026-07-28 era builds a server per request, so the same schema object is
// registered again and again: convert it once. Consumers only read the result.
const convertedJsonSchema = perObject((schema: StandardSchemaV1): Record<string, unknown> | undefined =>
  (schema as JsonSchemaCarrier)['~standard'].jsonSchema?.input({ target: 'draft-2020-12' }),
);

function jsonSchemaOf(schema: StandardSchemaV1 | undefined): Record<string, unknown> | undefined {
  return schema === undefined ? undefined : convertedJsonSchema(schema);
}

function withJsonSchema(
  name: string,
  field: string,
  schema: StandardSchemaV1 | undefined,
): StandardSchemaWithJSON | undefined {
  if (schema === undefined) return undefined;
  if ((schema as JsonSchemaCarrier)['~standard'].jsonSchema === undefined) {
    throw new ConfigurationError(
      'SCHEMA_WITHOUT_JSON_SCHEMA',
      `tool "${name}": ${field} must implement Standard JSON Schema (zod v4 does); the v2 SDK lists tools with it`,
    );
  }
  return schema as unknown as StandardSchemaWithJSON;
}

/**
 * The schema as the SDK sees it: listed with its JSON Schema, but accepting
 * any arguments, because the pipeline validates them itself (under the
 * errors stage, so a bad argument becomes a structured error naming the
 * field rather than the SDK's plain "Input validation error").
 */
function listedOnly(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  return { '~standard': { ...standard, validate: (value: unknown) => ({ value }) } };
}

async function runTool(
  host: ToolHost,
  tool: ToolInfo,
  handler: ToolHandler,
  args: Record<string, unknown>,
  ctx: ServerContext,
  inputSchema: StandardSchemaV1 | undefined,
): Promise<CallToolResult> {
  const request = host.contextFor(ctx);
  const call = { name: tool.name, arguments: args, meta: ctx.mcpReq._meta ?? {}, params: host.callParams.get(ctx) };
  try {
    const validate = (input: Record<string, unknown>) => validateArguments(tool.name, inputSchema, input);
    return (await host.composed.runToolCall(
      call,
      createCallContext(request, tool),
      handler,
      validate,
    )) as CallToolResult;
  } catch (error) {
    if (WireError.isInstance(error)) host.parked.set(ctx, error);
    throw error;
  }
}

/** Registers a tool whose calls run through the pipeline (`ExtendedServer.registerTool`). */
export function registerTool(host: ToolHost, name: string, config: ToolConfig, run: ToolHandler): ToolInfo {
  const { composed, register } = host;
  const tool = composed.internTool(toolInfoOf(name, config, jsonSchemaOf));
  const decorated = composed.decorateTool(tool);
  composed.recordTool(tool);
  const sdkConfig = {
    title: config.title,
    description: config.description,
    outputSchema: withJsonSchema(name, 'outputSchema', config.outputSchema),
    annotations: decorated.annotations,
    _meta: decorated._meta,
  };
  const inputSchema = withJsonSchema(name, 'inputSchema', config.inputSchema);
  rememberTool(composed, {
    tool,
    handler: run,
    validate: (input) => validateArguments(tool.name, config.inputSchema, input),
  });
  if (inputSchema === undefined) {
    register(name, sdkConfig, (ctx) => runTool(host, tool, run, {}, ctx, undefined));
  } else {
    register(name, { ...sdkConfig, inputSchema: listedOnly(inputSchema) }, (args, ctx) =>
      runTool(host, tool, run, asRecord(args) ?? {}, ctx, config.inputSchema),
    );
  }
  return tool;
}
