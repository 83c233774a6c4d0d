import type { NegotiationTable } from './compose.js';
import type { Logger } from './logger.js';
import type { Store } from './store.js';
import type {
  AuthInfo,
  CallContext,
  ElicitationRequest,
  ElicitationResponse,
  InputRound,
  ProtocolEra,
  RequestContext,
  SdkLine,
  ToolInfo,
} from './types.js';

/** The raw facts an adapter reads off its SDK for one request. */
export interface RequestFacts {
  readonly sdk: SdkLine;
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  readonly authInfo: AuthInfo | undefined;
  readonly sessionId: string | undefined;
  readonly peerExtensions: Readonly<Record<string, unknown>> | undefined;
  readonly negotiation: NegotiationTable;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly store: Store;
  readonly progressToken: string | number | undefined;
  readonly notify: (method: string, params?: Record<string, unknown>) => Promise<void>;
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationResponse>) | undefined;
  /** Multi-round-trip input (2026-07-28 era, client can elicit); absent elsewhere. */
  readonly inputRound?: InputRound | undefined;
  readonly principal?: ((info: { authInfo: AuthInfo | undefined; sessionId: string | undefined }) => string) | undefined;
}

/** The default principal: OAuth client id, else session id, else `"anonymous"`. */
export function defaultPrincipal(info: { authInfo: AuthInfo | undefined; sessionId: string | undefined }): string {
  return info.authInfo?.clientId ?? (info.sessionId !== undefined ? `session:${info.sessionId}` : 'anonymous');
}

/** Builds the SDK-neutral context every middleware and method handler receives. */
export function createRequestContext(facts: RequestFacts): RequestContext {
  const resolve = facts.principal ?? defaultPrincipal;
  return {
    sdk: facts.sdk,
    era: facts.era,
    protocolVersion: facts.protocolVersion,
    principal: resolve({ authInfo: facts.authInfo, sessionId: facts.sessionId }),
    authInfo: facts.authInfo,
    peerExtensions: facts.peerExtensions,
    negotiated: ((name: string) => facts.negotiation.get(name)) as RequestContext['negotiated'],
    signal: facts.signal,
    logger: facts.logger,
    store: facts.store,
    notify: facts.notify,
    progressToken: facts.progressToken,
    elicit: facts.elicit,
    inputRound: facts.inputRound,
    locals: new Map(),
  };
}

/** Adds the tool to a request context. */
export function createCallContext(request: RequestContext, tool: ToolInfo): CallContext {
  return { ...request, tool };
}
