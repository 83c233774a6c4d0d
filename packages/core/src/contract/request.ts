/** The facts of a request an extension's code is given, apart from the composition it runs in. */
import type { Logger } from '../telemetry/logger.js';
import type { Store } from '../store/store.js';
import type {
  AuthInfo,
  CallerIdentity,
  ConnectionChannel,
  ElicitationRequest,
  ElicitationResponse,
  InputRound,
  NegotiatedExtension,
  ProtocolEra,
  SdkLine,
} from './types.js';

/**
 * What every request context holds apart from the server it arrived at
 * (`RequestContext` adds that): what the adapter knows of the request and its
 * caller, and the means to answer, ask and notify.
 */
export interface RequestScope {
  readonly sdk: SdkLine;
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  /** The JSON-RPC `id` of the request; both adapters set it. `undefined` only in contexts built by hand. */
  readonly requestId?: string | number | undefined;
  /** The transport's session id (a legacy-era Streamable HTTP session), when there is one. */
  readonly sessionId?: string | undefined;
  /**
   * The caller's principal: the key of every per-caller record. Resolved by
   * the core (see `identity`); never read from `_meta` or tool arguments.
   */
  readonly principal: string;
  /**
   * Who is calling and how that is known (OAuth token, the server author's
   * `identify` hook, a local link, or the shared anonymous caller).
   * `undefined` for an HTTP request nothing identifies: the core then
   * refuses it wherever an extension keeps per-caller state.
   */
  readonly identity: CallerIdentity | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** The peer's `capabilities.extensions`, or `undefined` when it cannot be known (legacy stateless HTTP). */
  readonly peerExtensions: Readonly<Record<string, unknown>> | undefined;
  /**
   * The negotiation outcome for one of the composed extensions, by its
   * identifier (`ERRORS_ID`; any identifier the extension serves finds it,
   * and `id` says which one was agreed), or `undefined` when the peer does
   * not speak it (CORE-36). The npm name (`'@ext/errors'`) still works, with
   * a one-time warning: it is deprecated.
   */
  negotiated<S = Record<string, unknown>>(extension: string): NegotiatedExtension<S> | undefined;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The store given to the adapter (memory by default). */
  readonly store: Store;
  /** Sends a notification related to this request (progress, extension events). */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /**
   * The connection itself, for notifications after this request has been
   * answered (event subscriptions); `undefined` where no connection outlives
   * the request (2026-07-28, legacy stateless HTTP).
   */
  readonly connection?: ConnectionChannel | undefined;
  /** MCP progress token of the request, if the client sent one. */
  readonly progressToken: string | number | undefined;
  /**
   * Asks the human through the client, when the client can be asked in-band
   * (legacy-era elicitation). `undefined` when it cannot.
   */
  readonly elicit: ((request: ElicitationRequest) => Promise<ElicitationResponse>) | undefined;
  /**
   * The 2026-07-28 era's way to ask in-band (multi-round-trip input): defined
   * when the client advertised form elicitation on that era. A middleware or
   * handler asks by returning `inputRequiredResult(...)`; the client asks its
   * user and retries the same call carrying the answers, read here.
   */
  readonly inputRound: InputRound | undefined;
  /**
   * The SDK's own context of this request, for what the core does not model
   * (a legacy-era sampling request, say): v2's `ServerContext`, v1's
   * `RequestHandlerExtra`. Tied to one SDK line; extensions never read it.
   */
  readonly sdkContext: unknown;
  /** Scratch space for extensions to share per-request data, keyed by symbol. */
  readonly locals: Map<symbol, unknown>;
}
