/** The README's client half: a call that says why it is made, following the server's suggestion when allowed. */
// #region client
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { extendClient } from '@ext/core/sdk-v2/client';
import { callWithIntent, intentClient } from '@ext/intent/client';

const sdkClient = new Client({ name: 'assistant', version: '1.0.0' });
const client = extendClient(sdkClient, [intentClient({ policy: 'follow', allowTools: ['get_recent_incidents'] })]);
await sdkClient.connect(new StdioClientTransport({ command: 'node', args: ['issues-server.js'] }));

const { result, suggestion, executed, followed } = await callWithIntent(
  client,
  'search_issues',
  { query: 'deploy' },
  "Find Friday's deployment incident",
);
// suggestion: { suggestion: { recommended_tool, reason }, executed }; followed: the tool whose result `result` is, if any
// #endregion client

export { result, suggestion, executed, followed };
