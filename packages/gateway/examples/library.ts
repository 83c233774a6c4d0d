/** The README's library example: a gateway built from a config file, served over HTTP. */
// #region library
import { listen } from '@ext/core/sdk-v2/server';
import { createGateway, loadConfig } from '@ext/gateway';

const { config, manifests } = await loadConfig('gateway.yaml'); // throws GatewayConfigError naming the bad field
const gateway = await createGateway(config, { manifests });
for (const tool of gateway.tools) console.log(tool.name, tool.policy.confirm ? 'needs approval' : '');
const server = await listen(gateway.http, { port: 8080 });

process.once('SIGINT', () => {
  void server.close().then(() => gateway.close()); // also stops stdio upstreams
});
// #endregion library
