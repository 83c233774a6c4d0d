import type { NegotiationTable } from './compose.js';
import { ANONYMOUS_PRINCIPAL, type CallerIdentity } from './identity.js';
import type { Logger } from './logger.js';
import type { Store } from './store.js';
import type {
  AuthInfo,
  CallContext,
  ConnectionChannel,
  ElicitationRequest,
  ElicitationResponse,
  InputRound,
  ProtocolEra,
  RequestContext,
  SdkLine,
  ServerIdentity,
  ServingServer,
  ToolInfo,
} from './types.js';

/** The raw facts an adapter reads off its SDK for one request. */
export interface RequestFacts {
  readonly sdk: SdkLine;
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  /** The JSON-RPC `id` of the request (see `RequestContext.requestId`). */
  readonly requestId?: string | number | undefined;
  /** The transport's session id, when there is one (see `RequestContext.sessionId`). */
  readonly sessionId?: string | undefined;
  readonly authInfo: AuthInfo | undefined;
  readonly peerExtensions: Readonly<Record<string, unknown>> | undefined;
  readonly negotiation: NegotiationTable;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly store: Store;
  readonly progressToken: string | number | undefined;
  readonly notify: (method: string, params?: Record<string, unknown>) => Promise<void>;
  /** The connection, where it outlives the request (see `RequestContext.connection`). */
  readonly connection?: ConnectionChannel | undefined;
  /** The server the request arrived at (see `RequestContext.server`). */
  readonly server?: ServingServer | undefined;
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationResponse>) | undefined;
  /** Multi-round-trip input (2026-07-28 era, client can elicit); absent elsewhere. */
  readonly inputRound?: InputRound | undefined;
  /** The SDK's own context of the request (see `RequestContext.sdkContext`). */
  readonly sdkContext?: unknown;
  /** The caller, resolved by `resolveCaller`; `undefined` for an HTTP request nothing identifies. */
  readonly identity: CallerIdentity | undefined;
}

/** Builds the SDK-neutral context every middleware and method handler receives. */
export function createRequestContext(facts: RequestFacts): RequestContext {
  return {
    sdk: facts.sdk,
    era: facts.era,
    protocolVersion: facts.protocolVersion,
    requestId: facts.requestId,
    sessionId: facts.sessionId,
    // Unidentified callers reach no extension that keeps per-caller state (the core refuses them first).
    principal: facts.identity?.principal ?? ANONYMOUS_PRINCIPAL,
    identity: facts.identity,
    authInfo: facts.authInfo,
    peerExtensions: facts.peerExtensions,
    negotiated: ((name: string) => facts.negotiation.get(name)) as RequestContext['negotiated'],
    signal: facts.signal,
    logger: facts.logger,
    store: facts.store,
    notify: facts.notify,
    connection: facts.connection,
    server: facts.server,
    progressToken: facts.progressToken,
    elicit: facts.elicit,
    inputRound: facts.inputRound,
    sdkContext: facts.sdkContext,
    locals: new Map(),
  };
}

/**
 * The identity an SDK server was constructed with (its `Implementation`),
 * read defensively: neither SDK line exposes it publicly, so an adapter
 * passes what it finds and anything malformed falls back to placeholders.
 */
export function readServerIdentity(implementation: unknown): ServerIdentity {
  const record =
    typeof implementation === 'object' && implementation !== null ? (implementation as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => (typeof record[key] === 'string' ? record[key] : undefined);
  return {
    name: text('name') ?? 'unknown',
    version: text('version') ?? '0.0.0',
    title: text('title'),
    description: text('description'),
    websiteUrl: text('websiteUrl'),
  };
}

/** Adds the tool to a request context. */
export function createCallContext(request: RequestContext, tool: ToolInfo): CallContext {
  return { ...request, tool };
}
