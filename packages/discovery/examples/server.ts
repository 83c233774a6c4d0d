/** The README's server half: a helpdesk that recommends other servers, from a registry index and its own peers. */
// #region server
import { composeServer } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { errorsServer } from '@ext/errors/server';
import {
  discoveryServer,
  loadRegistryFile,
  RegistryIndex,
  saveRegistryFile,
  syncRegistry,
} from '@ext/discovery/server';

const index = new RegistryIndex();
// Either load a saved copy (the registry's /v0.1/servers format)...
await loadRegistryFile(index, './registry-index.json', { registryUrl: 'https://registry.modelcontextprotocol.io' });
// ...or sync from a registry: all pages the first time, then only what changed.
await syncRegistry(index, { url: 'https://registry.modelcontextprotocol.io' });
setInterval(
  () => {
    syncRegistry(index, { url: 'https://registry.modelcontextprotocol.io' })
      .then(() => saveRegistryFile(index, './registry-index.json'))
      .catch((error: unknown) => {
        console.error('registry sync failed; keeping the last index', error);
      });
  },
  60 * 60 * 1000,
).unref();

const composed = composeServer([
  errorsServer(),
  discoveryServer({
    index,
    peers: [
      {
        name: 'com.acme/billing',
        description: 'Invoices, refunds and subscription plans for Acme customers.',
        keywords: ['payments'],
        url: 'https://billing.acme.example/mcp',
        authFlow: 'oauth2',
      },
    ],
    exclude: ['com.acme/helpdesk'], // this server's own registry name
  }),
]);

const mcp = new McpServer({ name: 'helpdesk', version: '1.0.0' });
extendServer(mcp, composed);
await mcp.connect(new StdioServerTransport());
// #endregion server
