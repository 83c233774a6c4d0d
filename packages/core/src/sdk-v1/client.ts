import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { McpError, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { composeClient, type ComposedClient, type NegotiationTable } from '../compose.js';
import { ConfigurationError } from '../errors.js';
import type { CallToolOptions, ClientAdapterOptions, ClientExtensionList, ExtendedClient } from '../host.js';
import type { OutgoingCall } from '../extension.js';
import { clientCallOutcome } from '../semconv.js';
import { observeClientCall, paramsWithMeta } from '../telemetry.js';
import type { ToolResult } from '../types.js';
import { anyResult, asRecord, fromMcpError, methodSchema } from './shared.js';

/** Re-throws the SDK's protocol error as a `WireError`; anything else as it is. */
async function translated<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw error instanceof McpError ? fromMcpError(error) : error;
  }
}

function requestOptions(options: CallToolOptions | { signal?: AbortSignal; timeoutMs?: number }): RequestOptions {
  const out: RequestOptions = {};
  if (options.signal) out.signal = options.signal;
  if (options.timeoutMs !== undefined) out.timeout = options.timeoutMs;
  if ('onProgress' in options && options.onProgress) {
    const onProgress = options.onProgress;
    out.onprogress = ({ progress, total, message }) => {
      onProgress({ progress, total, message });
    };
  }
  return out;
}

/** Negotiates against the server's `initialize` capabilities, once per capabilities object. */
function negotiator(client: Client, composed: ComposedClient): () => NegotiationTable {
  let cached: { capabilities: ServerCapabilities | undefined; table: NegotiationTable } | undefined;
  return () => {
    const capabilities = client.getServerCapabilities();
    if (cached !== undefined && cached.capabilities === capabilities) return cached.table;
    const table = composed.negotiate(capabilities?.extensions);
    cached = { capabilities, table };
    return table;
  };
}

async function callTool(
  client: Client,
  composed: ComposedClient,
  table: NegotiationTable,
  name: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
): Promise<ToolResult> {
  const call: OutgoingCall = { name, arguments: args, meta: { ...(options.meta ?? {}) } };
  const send = () => sendCall(client, composed, table, call, options);
  if (!composed.telemetry) return send();
  return observeClientCall({ method: 'tools/call', tool: name, meta: call.meta }, send, clientCallOutcome);
}

/** The call through every client half, sent. */
async function sendCall(
  client: Client,
  composed: ComposedClient,
  table: NegotiationTable,
  call: OutgoingCall,
  options: CallToolOptions,
): Promise<ToolResult> {
  for (const half of composed.extensions) await half.prepareCall?.(call, table.get(half.name));
  const params = {
    name: call.name,
    arguments: call.arguments,
    ...(Object.keys(call.meta).length > 0 ? { _meta: call.meta } : {}),
  };
  const result = (await translated(() => client.callTool(params, undefined, requestOptions(options)))) as ToolResult;
  for (const half of composed.extensions) half.onResult?.(result, call, table.get(half.name));
  return result;
}

async function listTools(client: Client): ReturnType<ExtendedClient['listTools']> {
  const tools: Awaited<ReturnType<ExtendedClient['listTools']>> = [];
  let cursor: string | undefined;
  do {
    const page = await translated(() => client.listTools(cursor === undefined ? undefined : { cursor }));
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/**
 * Attaches client extension halves to a v1 `Client`: advertises them in
 * `capabilities.extensions` and returns a client whose `callTool` lets every
 * half add its per-call data. Call it before `connect`.
 */
export function extendClient(
  client: Client,
  extensions: ClientExtensionList,
  options: ClientAdapterOptions = {},
): ExtendedClient {
  if (client.transport !== undefined) {
    throw new ConfigurationError('ALREADY_CONNECTED', 'extendClient: call it before client.connect(transport)');
  }
  const composed = composeClient(extensions, {
    logger: options.logger,
    allowReservedIds: options.allowReservedIds,
    telemetry: options.telemetry,
  });
  client.registerCapabilities({ extensions: composed.capabilities() });
  const negotiation = negotiator(client, composed);
  return {
    sdk: 'v1',
    era: 'legacy',
    composed,
    serverExtensions: () => asRecord(client.getServerCapabilities()?.extensions) ?? {},
    negotiated: ((extension: string | { name: string }) =>
      negotiation().get(typeof extension === 'string' ? extension : extension.name)) as ExtendedClient['negotiated'],
    callTool: (name, args = {}, callOptions = {}) => callTool(client, composed, negotiation(), name, args, callOptions),
    request: (method, params = {}, requestOpts = {}) => {
      const send = (sent: Record<string, unknown>) =>
        translated(() => client.request({ method, params: sent }, anyResult, requestOptions(requestOpts)));
      if (!composed.telemetry) return send(params);
      const meta = { ...asRecord(params._meta) };
      return observeClientCall({ method, meta }, () => send(paramsWithMeta(params, meta)), clientCallOutcome);
    },
    listTools: () => listTools(client),
    onNotification: (method, handler) => {
      client.setNotificationHandler(methodSchema(method), (notification) => {
        handler(notification.params ?? {});
      });
    },
    close: () => client.close(),
  };
}
