/** The v1 client adapter: `extendClient` attaches client extension halves to a `@modelcontextprotocol/sdk` `Client`. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { callThroughHalves, observedRequest, observedToolCall } from '../pipeline/client-adapter.js';
import { composeClient } from '../pipeline/compose.js';
import { ConfigurationError } from '../contract/errors.js';
import type { ComposedClient, NegotiationTable, OutgoingCall } from '../contract/client-extension.js';
import type { CallToolOptions, ClientAdapterOptions, ClientExtensionList, ExtendedClient } from '../contract/host.js';
import { asRecord } from '../kit/records.js';
import { perCapabilities } from '../negotiation/negotiation.js';
import { lookupNegotiated } from '../negotiation/negotiation-lookup.js';
import type { ToolResult } from '../contract/types.js';
import { anyResult, fromMcpError, methodSchema } from './shared.js';

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

/** `tools/call` through every client half, sent with the half's data in `params._meta` (none when empty). */
function callTool(
  client: Client,
  composed: ComposedClient,
  table: NegotiationTable,
  name: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
): Promise<ToolResult> {
  const call: OutgoingCall = { name, arguments: args, meta: { ...(options.meta ?? {}) } };
  return observedToolCall(composed, call, () =>
    callThroughHalves(composed, table, call, async (prepared) => {
      const params = {
        name: prepared.name,
        arguments: prepared.arguments,
        ...(Object.keys(prepared.meta).length > 0 ? { _meta: prepared.meta } : {}),
      };
      return (await translated(() => client.callTool(params, undefined, requestOptions(options)))) as ToolResult;
    }),
  );
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
  // Server capabilities are fixed per connection: negotiated once per object, so invalid settings are reported once.
  const negotiation = perCapabilities(
    () => client.getServerCapabilities(),
    (capabilities) => composed.negotiate(capabilities?.extensions),
  );
  return {
    sdk: 'v1',
    era: 'legacy',
    composed,
    serverExtensions: () => asRecord(client.getServerCapabilities()?.extensions) ?? {},
    negotiated: ((extension: string | { name: string }) =>
      typeof extension === 'string'
        ? lookupNegotiated(negotiation(), extension, composed.logger, 'client.negotiated')
        : negotiation().get(extension.name)) as ExtendedClient['negotiated'],
    callTool: (name, args = {}, callOptions = {}) => callTool(client, composed, negotiation(), name, args, callOptions),
    request: (method, params = {}, requestOpts = {}) =>
      observedRequest(composed, method, params, (sent) =>
        translated(() => client.request({ method, params: sent }, anyResult, requestOptions(requestOpts))),
      ),
    listTools: () => listTools(client),
    onNotification: (method, handler) => {
      client.setNotificationHandler(methodSchema(method), (notification) => {
        handler(notification.params ?? {});
      });
    },
    close: () => client.close(),
  };
}
