/** What a test pair is: the SDK lines and eras it runs on, its options, and the connected client and server it gives. */
import type {
  ClientAdapterOptions,
  ClientExtensionList,
  ExtendedClient,
  ExtendedServer,
  ServerAdapterOptions,
  ServerExtensionList,
} from '../contract/host.js';
import type { AuthInfo, ElicitationRequest, ElicitationResponse } from '../contract/types.js';

/** The SDK line and protocol era a test pair runs on. */
export type TestLine = 'v1' | 'v2-legacy' | 'v2-modern';

/** Every line, for `describe.each(TEST_LINES)`. */
export const TEST_LINES: readonly TestLine[] = ['v1', 'v2-legacy', 'v2-modern'];

export interface TestPairOptions {
  readonly line: TestLine;
  /** Server halves; the same list is composed once and reused for every per-request server. */
  readonly serverExtensions?: ServerExtensionList | undefined;
  /** Client halves; leave empty to test a client that lacks the extensions. */
  readonly clientExtensions?: ClientExtensionList | undefined;
  /** Registers tools on the extended server (called for every server instance the line creates). */
  readonly setup?: ((server: ExtendedServer) => void | Promise<void>) | undefined;
  readonly serverOptions?: ServerAdapterOptions | undefined;
  readonly clientOptions?: ClientAdapterOptions | undefined;
  /** Answers the server's elicitation requests (legacy era); absent = the client cannot elicit. */
  readonly onElicit?: ((request: ElicitationRequest) => Promise<ElicitationResponse>) | undefined;
  /** Simulates an authenticated caller (HTTP lines; on v1's in-memory link it is injected as `authInfo`). */
  readonly authInfo?: AuthInfo | undefined;
}

export interface TestPair {
  readonly line: TestLine;
  readonly client: ExtendedClient;
  /** The (last created) extended server. */
  readonly server: ExtendedServer;
  close(): Promise<void>;
}
