/**
 * Attribute names and values of the OpenTelemetry semantic conventions for
 * MCP (GenAI conventions, `mcp.*`), and how an answer maps onto them.
 * Pure: no OpenTelemetry import.
 */
import { ExtensionError, WireError, toWireError } from '../contract/errors.js';
import type { ToolResult } from '../contract/types.js';

export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/** Ours, not the conventions': which pipeline stage a span covers, and the package serving it. */
export const ATTR_PIPELINE_STAGE = 'mcp_ext.pipeline.stage';
export const ATTR_EXTENSION = 'mcp_ext.extension';

/** `error.type` of a `CallToolResult` with `isError: true`, as the conventions name it. */
export const TOOL_ERROR = 'tool_error';
/** `error.type` when nothing more specific can be said. */
export const OTHER_ERROR = '_OTHER';

/** How a request ended, in the conventions' terms; empty when it succeeded. */
export interface Outcome {
  /** `error.type`: the JSON-RPC error code, `tool_error`, or a class of error. */
  readonly errorType?: string | undefined;
  /** `rpc.response.status_code`: the JSON-RPC error code, when the answer is one. */
  readonly statusCode?: string | undefined;
  /** The JSON-RPC error message: the span status description. */
  readonly message?: string | undefined;
}

const SUCCESS: Outcome = {};

function jsonRpcOutcome(error: WireError): Outcome {
  const code = String(error.code);
  return { errorType: code, statusCode: code, message: error.message };
}

/**
 * A `tools/call`: a `WireError` travels as that JSON-RPC error; anything else
 * thrown reaches the client as an `isError` result (the adapters make one of
 * it), like a result the pipeline returned with `isError`.
 */
export function toolCallOutcome(result: ToolResult | undefined, error: unknown): Outcome {
  if (error !== undefined) return WireError.isInstance(error) ? jsonRpcOutcome(error) : { errorType: TOOL_ERROR };
  return result?.isError === true ? { errorType: TOOL_ERROR } : SUCCESS;
}

/** An extension method: whatever it threw reaches the client as the JSON-RPC error core's `toWireError` makes of it. */
export function methodOutcome(error: unknown): Outcome {
  return error === undefined ? SUCCESS : jsonRpcOutcome(toWireError(error));
}

/**
 * A request as the client saw it end: a JSON-RPC error by its code, any
 * other failure (a timeout, a transport error) by its class, and a tool
 * result with `isError` as `tool_error`.
 */
export function clientCallOutcome(result: unknown, error: unknown): Outcome {
  if (error !== undefined)
    return WireError.isInstance(error) ? jsonRpcOutcome(error) : { errorType: errorClass(error) };
  const isError = typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
  return isError ? { errorType: TOOL_ERROR } : SUCCESS;
}

// A class name or a code: low cardinality, nothing a message could carry.
const ERROR_CLASS = /^[A-Za-z_][\w.$-]{0,63}$/;

/**
 * `error.type` of something thrown inside the server: a JSON-RPC error's
 * code, a structured error's code (`PERMISSION_DENIED`), an error's class
 * name (`TypeError`), else `_OTHER`. Never throws, whatever was thrown.
 */
export function errorClass(error: unknown): string {
  try {
    if (WireError.isInstance(error)) return String(error.code);
    if (ExtensionError.isInstance(error)) return ERROR_CLASS.test(error.code) ? error.code : OTHER_ERROR;
    const name: unknown = error instanceof Error ? error.name : undefined;
    return typeof name === 'string' && ERROR_CLASS.test(name) ? name : OTHER_ERROR;
  } catch {
    // A proxy or a throwing getter: no class to tell.
    return OTHER_ERROR;
  }
}

/** `{mcp.method.name} {target}`, the target being the tool's name when there is one. */
export function operationName(method: string, tool: string | undefined): string {
  return tool === undefined ? method : `${method} ${tool}`;
}
