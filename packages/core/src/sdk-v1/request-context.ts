/**
 * Each request as the v1 adapter hands it to the core: its context (caller,
 * negotiation, elicitation, connection) read off the SDK's `extra`, and the
 * protocol version and connection the adapter tracks to fill it in.
 */
import {
  InitializeRequestSchema,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type InitializeResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { createRequestContext } from '../pipeline/context.js';
import type { RequestContext } from '../contract/extension.js';
import { resolveCaller, withLocalScopes } from '../contract/identity.js';
import { asRecord } from '../kit/records.js';
import { closingChannel, coreAuthInfo, progressTokenOf } from '../pipeline/server-adapter.js';
import type { ElicitationRequest, ElicitationResponse } from '../contract/types.js';
import { hookConnect, installedRequestHandler } from './sdk-patches.js';
import type { Extra, ServerState } from './state.js';

// Keys the protocol itself puts in `params._meta`; they are not extension data.
const ENVELOPE_KEYS = new Set(['progressToken', 'io.modelcontextprotocol/related-task']);

/** `params._meta` of a request minus the protocol's own envelope keys. */
export function callMeta(meta: unknown): Record<string, unknown> {
  const record = asRecord(meta) ?? {};
  return Object.fromEntries(Object.entries(record).filter(([key]) => !ENVELOPE_KEYS.has(key)));
}

function supportsFormElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = asRecord(capabilities?.elicitation);
  return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
}

function elicitFor(state: ServerState, extra: Extra): RequestContext['elicit'] {
  const sdk = state.server.server;
  if (!supportsFormElicitation(sdk.getClientCapabilities())) return undefined;
  return async (request: ElicitationRequest): Promise<ElicitationResponse> => {
    const params = { mode: 'form', message: request.message, requestedSchema: request.requestedSchema };
    const result = await sdk.elicitInput(params as ElicitRequestFormParams, {
      relatedRequestId: extra.requestId,
      signal: extra.signal,
    });
    return { action: result.action, content: result.content };
  };
}

/** The context of one request, from the SDK's `extra` and what the adapter tracked. */
export function requestContext(state: ServerState, extra: Extra): RequestContext {
  const capabilities = state.server.server.getClientCapabilities();
  const table = state.negotiation();
  const peer = capabilities === undefined ? undefined : (asRecord(capabilities.extensions) ?? {});
  // The SDK's HTTP transports attach `requestInfo` (the request's headers) to every message; stdio and in-memory links do not.
  const overHttp = extra.requestInfo !== undefined;
  const carried = coreAuthInfo(extra.authInfo);
  return createRequestContext({
    sdk: 'v1',
    era: 'legacy',
    protocolVersion: state.protocolVersion,
    requestId: extra.requestId,
    sessionId: extra.sessionId,
    authInfo: withLocalScopes(carried, overHttp, state.options.localScopes),
    identity: resolveCaller({ rawAuthInfo: extra.authInfo, authInfo: carried, overHttp }),
    peerExtensions: peer,
    negotiation: table,
    signal: extra.signal,
    logger: state.logger,
    store: state.store,
    progressToken: progressTokenOf(asRecord(extra._meta)?.progressToken),
    notify: (method, params) => extra.sendNotification({ method, params } as ServerNotification),
    elicit: elicitFor(state, extra),
    // Only a client seen at `initialize` is on a connection that outlives the request (not stateless HTTP).
    connection: peer === undefined ? undefined : state.connection,
    server: state.serving,
    sdkContext: extra,
  });
}

/**
 * Gives each connection a channel for notifications tied to no request and
 * a signal aborted when it closes.
 */
export function trackConnection(state: ServerState): void {
  const inner = state.server.server;
  hookConnect(inner, (transport) => {
    state.connection = closingChannel(transport, (method, params) => inner.notification({ method, params }));
  });
}

/** Records the negotiated protocol version, which v1 does not keep anywhere public. */
export function trackProtocolVersion(state: ServerState): void {
  const original = installedRequestHandler(state.server.server, 'initialize');
  state.server.server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    const result = (await original(request, extra)) as InitializeResult;
    state.protocolVersion = result.protocolVersion;
    return result;
  });
}
