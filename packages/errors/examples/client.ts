/** The README's client half: retries what the server says is worth retrying, shows people what they can act on. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { extendClient } from '@ext/core/sdk-v2/client';
import { errorsClient, getStructuredError, withRetry } from '@ext/errors/client';

const client = new Client({ name: 'app', version: '1.0.0' });
const extended = extendClient(client, [errorsClient()]);
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3333/mcp')));

const result = await withRetry(() => extended.callTool('search', { q: 'invoices' }), {
  maxAttempts: 4,
  onAuthRequired: () => refreshToken(), // resolve true to retry once
});
const error = getStructuredError(result); // undefined on success
if (error?.user_actionable) showToUser(error.message, error.suggestion);
// #endregion client

declare function refreshToken(): Promise<boolean>;
declare function showToUser(message: string, suggestion?: string): void;
