/** The request and call contexts the adapters build from what their SDK reports, and the server identity they read. */
import type { CallContext, RequestContext } from '../contract/extension.js';
import type { NegotiationTable } from '../contract/client-extension.js';
import { ANONYMOUS_PRINCIPAL } from '../contract/identity.js';
import { lookupNegotiated } from '../negotiation/negotiation-lookup.js';
import type { InputRound, ServerIdentity, ToolInfo } from '../contract/types.js';

/**
 * The raw facts an adapter reads off its SDK for one request: the fields of
 * the context it knows as they are, the negotiation as a table.
 */
export interface RequestFacts extends Pick<
  RequestContext,
  | 'sdk'
  | 'era'
  | 'protocolVersion'
  | 'requestId'
  | 'sessionId'
  | 'authInfo'
  | 'peerExtensions'
  | 'signal'
  | 'logger'
  | 'store'
  | 'progressToken'
  | 'notify'
  | 'connection'
  | 'server'
  | 'elicit'
  | 'identity'
> {
  readonly negotiation: NegotiationTable;
  /** Multi-round-trip input (2026-07-28 era, client can elicit); absent elsewhere. */
  readonly inputRound?: InputRound | undefined;
  /** The SDK's own context of the request (see `RequestContext.sdkContext`). */
  readonly sdkContext?: unknown;
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
    negotiated: ((extension: string) =>
      lookupNegotiated(facts.negotiation, extension, facts.logger, 'ctx.negotiated')) as RequestContext['negotiated'],
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
