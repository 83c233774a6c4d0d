/**
 * Each request as the v2 adapter hands it to the core: what the client
 * declared (its own envelope on 2026-07-28, the `initialize` state on the
 * legacy era), the caller, and how to ask the client in-band on each era.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { RequestFacts } from '../pipeline/context.js';
import type { ComposedServer, ServingServer } from '../contract/extension.js';
import type { ServerAdapterOptions } from '../contract/host.js';
import { resolveCaller, withLocalScopes } from '../contract/identity.js';
import { asRecord } from '../kit/records.js';
import { coreAuthInfo, progressTokenOf } from '../pipeline/server-adapter.js';
import type { Store } from '../store/store.js';
import type { ConnectionChannel, ElicitationRequest, ElicitationResponse, ProtocolEra } from '../contract/types.js';

/** The low-level server under an McpServer (named by position: the class itself is marked for advanced use only). */
type Server = McpServer['server'];

interface PeerView {
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  /** `undefined` when the client's capabilities cannot be known (legacy stateless HTTP). */
  readonly capabilities: ClientCapabilities | undefined;
}

/**
 * What the client declared for this request: on 2026-07-28 the request's own
 * envelope; on the legacy era the `initialize` state of this instance, which
 * a stateless per-request instance never saw.
 */
function readPeer(inner: Server, ctx: ServerContext): PeerView {
  const envelope = asRecord(ctx.mcpReq.envelope);
  if (envelope !== undefined) {
    const version = envelope[PROTOCOL_VERSION_META_KEY];
    return {
      era: 'modern',
      protocolVersion: typeof version === 'string' ? version : undefined,
      capabilities: asRecord(envelope[CLIENT_CAPABILITIES_META_KEY]),
    };
  }
  // The accessors are deprecated in favour of the envelope, which the legacy era does not have.
  /* eslint-disable @typescript-eslint/no-deprecated */
  return {
    era: 'legacy',
    protocolVersion: inner.getNegotiatedProtocolVersion(),
    capabilities: inner.getClientCapabilities(),
  };
  /* eslint-enable @typescript-eslint/no-deprecated */
}

function elicitFor(ctx: ServerContext, peer: PeerView): RequestFacts['elicit'] {
  // 2026-07-28 has no server-to-client requests (input_required replaces them).
  if (peer.era !== 'legacy' || peer.capabilities?.elicitation === undefined) return undefined;
  return async (request: ElicitationRequest): Promise<ElicitationResponse> => {
    const requestedSchema = request.requestedSchema as unknown as ElicitRequestFormParams['requestedSchema'];
    // The SDK sends this request unrelated to the call unless told, so on the optional standalone GET stream,
    // and drops it when the client opened none; related, it travels on the call's own stream (CORE-35).
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the legacy era's way to ask; guarded above
    const answer = await ctx.mcpReq.elicitInput(
      { mode: 'form', message: request.message, requestedSchema },
      { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal },
    );
    return { action: answer.action, content: answer.content };
  };
}

/** RFC 5424 severities, least severe first, as MCP names them. */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Whether a log message may go out on 2026-07-28: only when the request
 * asked for logs (`_meta` logLevel), and at or above that level (CORE-39).
 */
function modernLogAllowed(ctx: ServerContext, params: Record<string, unknown> | undefined): boolean {
  const threshold = asRecord(ctx.mcpReq.envelope)?.[LOG_LEVEL_META_KEY];
  if (typeof threshold !== 'string') return false;
  return LOG_LEVELS.indexOf(String(params?.level)) >= LOG_LEVELS.indexOf(threshold);
}

function notifyFor(ctx: ServerContext, peer: PeerView): RequestFacts['notify'] {
  return async (method, params) => {
    if (peer.era === 'modern' && method === 'notifications/message' && !modernLogAllowed(ctx, params)) return;
    await ctx.mcpReq.notify({ method, params });
  };
}

function inputRoundFor(ctx: ServerContext, peer: PeerView): RequestFacts['inputRound'] {
  // The legacy era asks with a server-to-client request instead (elicitFor).
  if (peer.era !== 'modern' || peer.capabilities?.elicitation === undefined) return undefined;
  const responses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState();
  return {
    responses: typeof responses === 'object' ? responses : {},
    requestState: typeof state === 'string' ? state : undefined,
  };
}

export function requestFacts(
  inner: Server,
  ctx: ServerContext,
  composed: ComposedServer,
  store: Store,
  options: ServerAdapterOptions,
  connection: ConnectionChannel | undefined,
  serving: ServingServer,
): RequestFacts {
  const peer = readPeer(inner, ctx);
  const peerExtensions = peer.capabilities === undefined ? undefined : (asRecord(peer.capabilities.extensions) ?? {});
  // The SDK sets `ctx.http` for every request that came over HTTP, and only for those.
  const overHttp = ctx.http !== undefined;
  const carried = coreAuthInfo(ctx.http?.authInfo);
  return {
    sdk: 'v2',
    era: peer.era,
    protocolVersion: peer.protocolVersion,
    requestId: ctx.mcpReq.id,
    sessionId: ctx.sessionId,
    authInfo: withLocalScopes(carried, overHttp, options.localScopes),
    identity: resolveCaller({ rawAuthInfo: ctx.http?.authInfo, authInfo: carried, overHttp }),
    peerExtensions,
    negotiation: composed.negotiate(peerExtensions),
    signal: ctx.mcpReq.signal,
    logger: options.logger ?? composed.logger,
    store,
    progressToken: progressTokenOf(ctx.mcpReq._meta?.progressToken),
    notify: notifyFor(ctx, peer),
    elicit: elicitFor(ctx, peer),
    inputRound: inputRoundFor(ctx, peer),
    // Only a legacy-era client seen at `initialize` is on a connection that outlives the request.
    connection: peer.era === 'legacy' && peer.capabilities !== undefined ? connection : undefined,
    server: serving,
    sdkContext: ctx,
  };
}
