import { composeServer, ConfigurationError, MemoryStore, type Logger, type RequestContext } from '@ext/core';
import { createRequestContext, silentLogger } from '@ext/core/kit';
import { extendServer } from '@ext/core/sdk-v1';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { MANIFEST_ID, type ManifestGetResult } from './schema.js';
import { getServiceManifest, manifestServer, type ManifestServerOptions } from './server.js';

describe('manifestServer options', () => {
  it('MAN-1: refuses invalid options when the factory is called, naming the option', () => {
    const cases: [ManifestServerOptions, RegExp][] = [
      [{ ttlSeconds: 0 }, /ttlSeconds/],
      [{ ttlSeconds: 1.5 }, /ttlSeconds/],
      [{ homepage: 'not a url' }, /homepage/],
      [{ homepage: 'ftp://x.example' }, /homepage/],
      [{ mcpSpecVersion: '' }, /mcpSpecVersion/],
      [{ auth: { methods: ['password' as 'none'] } }, /auth\/methods\/0/],
      [{ auth: { sessionTtlSeconds: 1.5 } }, /auth\/sessionTtlSeconds/],
      [{ rateLimits: { requestsPerMinute: -0.5 } }, /rateLimits\/requestsPerMinute/],
      [{ rateLimits: { resetsAt: 'tomorrow' } }, /rateLimits\/resetsAt/],
      [{ recommendations: [{ capability: 'x' }] }, /recommendations\/0/],
      [
        { recommendations: [{ capability: 'x', serverName: 'y', registryUrl: 'nope' }] },
        /recommendations\/0\/registryUrl/,
      ],
      [{ include: 'all' as never }, /include/],
    ];
    for (const [options, message] of cases) {
      expect(() => manifestServer(options), JSON.stringify(options)).toThrow(ConfigurationError);
      expect(() => manifestServer(options)).toThrow(message);
    }
    expect(manifestServer().settings).toEqual({ version: '1.0', ttl_seconds: 300 });
  });

  it("MAN-15: checks the author's Tool._meta entry at registration, naming the tool and the field", () => {
    const server = extendServer(new McpServer({ name: 's', version: '1.0.0' }), [manifestServer()], {
      logger: silentLogger,
    });
    expect(() =>
      server.registerTool('paged', { _meta: { [MANIFEST_ID]: { supports_pagination: 'yes' } } }, () => ({
        content: [],
      })),
    ).toThrow(/tool "paged": _meta\["io\.github\.mcp-ext\/manifest"\]\/supports_pagination must be a boolean/);
    const info = server.registerTool('listed', { _meta: { [MANIFEST_ID]: { supports_pagination: true } } }, () => ({
      content: [],
    }));
    expect(server.composed.decorateTool(info)._meta[MANIFEST_ID]).toEqual({ supports_pagination: true });
  });

  it('MAN-5: warns once per tool it cannot list', () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const composed = composeServer([manifestServer()], { logger });
    composed.recordTool({ name: 'getOrder' });
    const serving = { composed, identity: { name: 's', version: '1.0.0' } };
    getServiceManifest(serving);
    getServiceManifest(serving);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"getOrder"');
  });

  it('MAN-14: getServiceManifest needs manifestServer() in the composition', () => {
    const composed = composeServer([], { logger: silentLogger });
    expect(() => getServiceManifest({ composed, identity: { name: 's', version: '1.0.0' } })).toThrow(
      /compose manifestServer\(\)/,
    );
  });

  it('MAN-2: a context without the server (built by hand) gets a structured failure, not a crash', async () => {
    const half = manifestServer();
    const ctx: RequestContext = createRequestContext({
      sdk: 'v1',
      era: 'legacy',
      protocolVersion: undefined,
      authInfo: undefined,
      identity: { principal: 'local', source: 'local' },
      peerExtensions: {},
      negotiation: new Map(),
      signal: new AbortController().signal,
      logger: silentLogger,
      store: new MemoryStore(),
      progressToken: undefined,
      notify: () => Promise.resolve(),
      elicit: undefined,
    });
    const get = half.methods?.get;
    if (get === undefined) throw new Error('no get method');
    await expect(Promise.resolve().then(() => get({}, ctx))).rejects.toMatchObject({
      code: 'MANIFEST_UNAVAILABLE',
      category: 'permanent',
    });
    const composed = composeServer([half], { logger: silentLogger });
    const answer = (await get(
      {},
      { ...ctx, server: { composed, identity: { name: 's', version: '1.0.0' } } },
    )) as ManifestGetResult;
    expect(answer.manifest?.tools).toEqual([]);
  });
});
