/** A test pair on SDK v2, either era: client and server over an in-process Streamable HTTP handler. */
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { McpServer, type AuthInfo as SdkAuthInfo } from '@modelcontextprotocol/server';
import { composeServer } from '../pipeline/compose.js';
import type { ExtendedServer } from '../contract/host.js';
import { silentLogger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { createHttpHandler, extendClient, extendServer } from '../sdk-v2/index.js';
import type { AuthInfo, ElicitationRequest, ElicitationResponse } from '../contract/types.js';
import type { TestPair, TestPairOptions } from './pair.js';

/** The first protocol revision without `initialize`. */
const MODERN_PROTOCOL_VERSION = '2026-07-28';
const ENDPOINT = new URL('http://mcp.test/mcp');

function toSdkAuthInfo(info: AuthInfo | undefined): SdkAuthInfo | undefined {
  if (info === undefined) return undefined;
  return {
    token: 'test-token',
    clientId: info.clientId ?? 'test-client',
    scopes: [...(info.scopes ?? [])],
    extra: info.extra === undefined ? undefined : { ...info.extra },
  };
}

function elicitationHandler(onElicit: (request: ElicitationRequest) => Promise<ElicitationResponse>) {
  return async (request: ElicitRequest): Promise<ElicitResult> => {
    const params = request.params;
    if (params.mode === 'url') return { action: 'decline' };
    const answer = await onElicit({ message: params.message, requestedSchema: params.requestedSchema });
    return { action: answer.action, content: answer.content as ElicitResult['content'] };
  };
}

/**
 * A v2 client and server linked in process: the server sits behind the SDK's
 * Streamable HTTP handler (`createHttpHandler`: `createMcpHandler` for
 * 2026-07-28, a sessionful transport for the legacy era) and the client transport's `fetch` calls it
 * directly, with no socket. The client is pinned to the line's era.
 */
export async function createV2Pair(options: TestPairOptions): Promise<TestPair> {
  if (options.line === 'v1') throw new RangeError('createV2Pair serves the v2 lines only');
  const serverOptions = options.serverOptions ?? {};
  const composed = composeServer(options.serverExtensions ?? [], {
    logger: serverOptions.logger,
    allowReservedIds: serverOptions.allowReservedIds,
    telemetry: serverOptions.telemetry,
  });
  const store = serverOptions.store ?? new MemoryStore();
  let latest: ExtendedServer | undefined;
  const factory = async (): Promise<McpServer> => {
    const server = new McpServer({ name: 'ext-test-server', version: '0.0.0' });
    const extended = extendServer(server, composed, { ...serverOptions, store });
    await options.setup?.(extended);
    latest = extended;
    return server;
  };

  const authInfo = toSdkAuthInfo(options.authInfo);
  // A pair with no caller serves every request as the shared anonymous one, as a local experiment would.
  const handler = createHttpHandler(factory, {
    anonymous: authInfo === undefined ? 'shared' : 'refuse',
    logger: silentLogger,
  });
  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> =>
    handler.fetch(new Request(url, init), { authInfo });

  const client = new Client(
    { name: 'ext-test-client', version: '0.0.0' },
    {
      versionNegotiation: { mode: options.line === 'v2-modern' ? { pin: MODERN_PROTOCOL_VERSION } : 'legacy' },
      capabilities: options.onElicit ? { elicitation: { form: {} } } : {},
    },
  );
  if (options.onElicit) client.setRequestHandler('elicitation/create', elicitationHandler(options.onElicit));
  const extended = extendClient(client, options.clientExtensions ?? [], options.clientOptions);
  await client.connect(new StreamableHTTPClientTransport(ENDPOINT, { fetch }));

  return {
    line: options.line,
    client: extended,
    get server(): ExtendedServer {
      if (latest === undefined) throw new Error('no server instance was created yet');
      return latest;
    },
    async close() {
      await client.close();
      await handler.close();
    },
  };
}
