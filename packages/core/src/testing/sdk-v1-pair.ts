/** A test pair on SDK v1: client and server over the SDK's in-memory transport. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { extendClient } from '../sdk-v1/client.js';
import { extendServer } from '../sdk-v1/server.js';
import type { AuthInfo, ElicitationResponse } from '../contract/types.js';
import type { TestPair, TestPairOptions } from './pair.js';

/** Stamps every message the client sends with `authInfo`, as an authenticating HTTP transport would. */
function authenticate(transport: InMemoryTransport, authInfo: AuthInfo): void {
  const send = transport.send.bind(transport);
  const sdkAuthInfo = {
    token: 'test-token',
    clientId: authInfo.clientId ?? '',
    scopes: [...(authInfo.scopes ?? [])],
    ...(authInfo.extra ? { extra: { ...authInfo.extra } } : {}),
  };
  transport.send = (message, options) => send(message, { ...options, authInfo: sdkAuthInfo });
}

function toElicitResult(response: ElicitationResponse): ElicitResult {
  return response.content === undefined
    ? { action: response.action }
    : { action: response.action, content: response.content as ElicitResult['content'] };
}

/** A v1 `McpServer` and `Client` over the SDK's in-memory transport, both extended. */
export async function createV1Pair(options: TestPairOptions): Promise<TestPair> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  if (options.authInfo) authenticate(clientTransport, options.authInfo);

  const mcpServer = new McpServer({ name: 'ext-test-server', version: '0.0.0' });
  const server = extendServer(mcpServer, options.serverExtensions ?? [], options.serverOptions);
  await options.setup?.(server);

  const onElicit = options.onElicit;
  const sdkClient = new Client(
    { name: 'ext-test-client', version: '0.0.0' },
    { capabilities: onElicit ? { elicitation: {} } : {} },
  );
  if (onElicit) {
    sdkClient.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params;
      if (params.mode === 'url') return { action: 'decline' };
      return toElicitResult(await onElicit({ message: params.message, requestedSchema: params.requestedSchema }));
    });
  }
  const client = extendClient(sdkClient, options.clientExtensions ?? [], options.clientOptions);

  await mcpServer.connect(serverTransport);
  await sdkClient.connect(clientTransport);
  return {
    line: 'v1',
    client,
    server,
    async close() {
      await sdkClient.close();
      await mcpServer.close();
    },
  };
}
