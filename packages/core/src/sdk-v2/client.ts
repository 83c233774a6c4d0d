/** The v2 client adapter: `extendClient` attaches client extension halves to a `@modelcontextprotocol/client` `Client`, on both eras. */
import {
  ProtocolError,
  SdkHttpError,
  type Client,
  type ClientCapabilities,
  type RequestOptions,
} from '@modelcontextprotocol/client';
import { callThroughHalves, observedRequest, observedToolCall } from '../pipeline/client-adapter.js';
import { composeClient } from '../pipeline/compose.js';
import { ConfigurationError, WireError } from '../contract/errors.js';
import type { ComposedClient, NegotiationTable, OutgoingCall } from '../contract/client-extension.js';
import type { CallToolOptions, ClientAdapterOptions, ClientExtensionList, ExtendedClient } from '../contract/host.js';
import { asRecord } from '../kit/records.js';
import { perCapabilities } from '../negotiation/negotiation.js';
import { lookupNegotiated } from '../negotiation/negotiation-lookup.js';
import type { NegotiatedExtension, ToolResult } from '../contract/types.js';
import { anyObject } from './shared.js';

// The SDK dispatches these itself (progress reaches `callTool`'s `onProgress`).
const SDK_OWNED_NOTIFICATIONS = new Set(['notifications/progress', 'notifications/cancelled']);

/**
 * The JSON-RPC error inside an HTTP failure. On the 2026-07-28 era a server
 * answers some errors (an unknown method, say) with a non-2xx status, which
 * the SDK reports as a transport failure with the response body in its
 * message; the caller should see the same `WireError` as on any other era.
 */
function jsonRpcErrorIn(error: SdkHttpError): WireError | undefined {
  const start = error.message.indexOf('{');
  if (start === -1) return undefined;
  try {
    const body = asRecord(JSON.parse(error.message.slice(start)));
    const inner = asRecord(body?.error);
    if (inner === undefined || typeof inner.code !== 'number' || !Number.isSafeInteger(inner.code)) return undefined;
    return new WireError(inner.code, typeof inner.message === 'string' ? inner.message : '', inner.data);
  } catch {
    // Not a JSON-RPC body: the failure stays a transport failure.
    return undefined;
  }
}

/**
 * What a v2 SDK client threw, as the peer meant it: a JSON-RPC error (a
 * `ProtocolError`, or one carried in an HTTP failure) becomes core's
 * `WireError`; anything else (timeouts, aborts, network failures) is returned
 * unchanged. For code that drives a bare SDK `Client`.
 */
export function toWireError(error: unknown): unknown {
  if (ProtocolError.isInstance(error)) return new WireError(error.code, error.message, error.data);
  if (error instanceof SdkHttpError) return jsonRpcErrorIn(error) ?? error;
  return error;
}

async function wireErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toWireError(error);
  }
}

function requestOptions(options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined }): RequestOptions {
  return { signal: options.signal, timeout: options.timeoutMs };
}

function progressOptions(options: CallToolOptions): RequestOptions {
  const onProgress = options.onProgress;
  if (!onProgress) return requestOptions(options);
  return {
    ...requestOptions(options),
    onprogress: ({ progress, total, message }) => {
      onProgress({ progress, total, message });
    },
  };
}

async function listTools(client: Client): ReturnType<ExtendedClient['listTools']> {
  const { tools } = await wireErrors(() => client.listTools());
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    annotations: tool.annotations,
    _meta: tool._meta,
    inputSchema: tool.inputSchema,
  }));
}

/** `onNotification`: one SDK handler per method, fanning out to every listener added for it. */
function notificationListeners(client: Client): ExtendedClient['onNotification'] {
  const listeners = new Map<string, Set<(params: Record<string, unknown>) => void>>();
  return (method, handler) => {
    if (SDK_OWNED_NOTIFICATIONS.has(method)) {
      throw new ConfigurationError(
        'SDK_OWNED_NOTIFICATION',
        `${method} is handled by the SDK; use callTool's onProgress or a signal`,
      );
    }
    let set = listeners.get(method);
    if (!set) {
      const handlers = new Set<(params: Record<string, unknown>) => void>();
      client.setNotificationHandler(method, { params: anyObject }, (received) => {
        for (const listener of handlers) listener(received);
      });
      listeners.set(method, handlers);
      set = handlers;
    }
    set.add(handler);
  };
}

// Server capabilities are fixed per connection: negotiate once per object
// so invalid settings are reported once, not on every call.
function negotiationOf(
  client: Client,
  composed: ComposedClient,
  serverExtensions: () => Readonly<Record<string, unknown>>,
): () => NegotiationTable {
  return perCapabilities(
    () => client.getServerCapabilities(),
    () => composed.negotiate(serverExtensions()),
  );
}

/**
 * Attaches composed client extensions to a v2 `Client`: advertises them in
 * `capabilities.extensions` (sent in `initialize` on the legacy era and in
 * every request's envelope on 2026-07-28) and returns the SDK-neutral
 * client extension helpers take. Call it before `connect`.
 */
export function extendClient(
  client: Client,
  extensions: ClientExtensionList,
  options: ClientAdapterOptions = {},
): ExtendedClient {
  const composed = composeClient(extensions, {
    logger: options.logger,
    allowReservedIds: options.allowReservedIds,
    telemetry: options.telemetry,
  });
  client.registerCapabilities({ extensions: composed.capabilities() as NonNullable<ClientCapabilities['extensions']> });

  const serverExtensions = (): Readonly<Record<string, unknown>> =>
    asRecord(client.getServerCapabilities()?.extensions) ?? {};
  const negotiation = negotiationOf(client, composed, serverExtensions);
  return {
    sdk: 'v2',
    get era() {
      return client.getProtocolEra() ?? 'legacy';
    },
    composed,
    serverExtensions,
    negotiated<S = Record<string, unknown>>(extension: string | { readonly name: string }) {
      const outcome =
        typeof extension === 'string'
          ? lookupNegotiated(negotiation(), extension, composed.logger, 'client.negotiated')
          : negotiation().get(extension.name);
      return outcome as NegotiatedExtension<S> | undefined;
    },
    callTool(name, args = {}, callOptions = {}) {
      const call: OutgoingCall = { name, arguments: { ...args }, meta: { ...callOptions.meta } };
      return observedToolCall(composed, call, async () =>
        callThroughHalves(
          composed,
          negotiation(),
          call,
          async (prepared) =>
            (await wireErrors(() =>
              client.callTool(
                { name: prepared.name, arguments: prepared.arguments, _meta: prepared.meta },
                progressOptions(callOptions),
              ),
            )) as ToolResult,
        ),
      );
    },
    request(method, params = {}, requestOpts = {}) {
      return observedRequest(composed, method, params, (sent) =>
        wireErrors(() => client.request({ method, params: sent }, anyObject, requestOptions(requestOpts))),
      );
    },
    listTools: () => listTools(client),
    onNotification: notificationListeners(client),
    close() {
      return client.close();
    },
  };
}
