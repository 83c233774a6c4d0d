/** The README's client half: asks the server which other servers can do what it cannot. */
// #region client
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { extendClient } from '@ext/core/sdk-v2/client';
import { describeRecommendation, discoveryClient, recommendServers } from '@ext/discovery/client';

const sdkClient = new Client({ name: 'assistant', version: '1.0.0' });
const client = extendClient(sdkClient, [discoveryClient()]); // before connect
await sdkClient.connect(new StdioClientTransport({ command: 'node', args: ['helpdesk-server.js'] }));

const answer = await recommendServers(client, 'design_mockup', { maxResults: 3 });
for (const recommendation of answer?.recommendations ?? []) console.log(describeRecommendation(recommendation));
// PixelForge [com.pixelforge/design] (high): Read PixelForge design files… — connect: https://mcp.pixelforge.example.com/mcp — auth: oauth2
// #endregion client
