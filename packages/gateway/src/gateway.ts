/**
 * The gateway: connects to the upstreams a config names, resolves each
 * upstream tool's policy, composes the extension family for them, and builds
 * downstream servers (one per stdio connection, or per request behind HTTP)
 * on which every proxied call runs through the pipeline. When an upstream's
 * tools change, the tools and the composition are rebuilt and connected
 * clients are told (`notifications/tools/list_changed`).
 */
import { consoleLogger, type ComposedServer, type ExtendedServer, type Logger, type Store } from '@ext/core';
import {
  createHttpHandler,
  extendServer,
  type DualEraHttpHandler,
  type NotifyingHttpHandler,
} from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { checkConfig } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import { composeGateway } from './compose.js';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import { callerIdentification } from './identity.js';
import { declaredScopes, type ManifestPolicy } from './policy/manifest.js';
import { resolveToolPolicy } from './policy/resolve.js';
import { openStore } from './store.js';
import { registerGatewayTools } from './tools.js';
import { UpstreamPool, type ExposedTool } from './upstream/index.js';

/** The gateway's name and version as servers (downstream) and as a client (upstream). */
const DEFAULT_NAME = 'mcp-ext-gateway';
const VERSION = '0.1.0';

export interface GatewayOptions {
  /** The manifests the config names, loaded (`loadConfig` returns them). */
  readonly manifests?: readonly ManifestPolicy[] | undefined;
  /** Overrides the config's store (tests, or a store the application owns). */
  readonly store?: Store | undefined;
  readonly logger?: Logger | undefined;
}

/** What the gateway offers right now: its tools with their policies, and the composition built for them. */
interface Offer {
  readonly tools: readonly GatewayTool[];
  readonly composed: ComposedServer;
}

export interface Gateway {
  /** The tools offered now, each with the policy that applies. */
  readonly tools: readonly GatewayTool[];
  readonly composed: ComposedServer;
  readonly store: Store;
  /** A new downstream server (SDK v2 `McpServer`): one per stdio connection, or per request behind HTTP. */
  createServer(): McpServer;
  /** The Streamable HTTP handler (both eras), identifying callers as the config says; serve it with core's `listen`. */
  readonly http: DualEraHttpHandler;
  /** Stops serving: closes the upstreams (child processes included) and the store the gateway opened. */
  close(): Promise<void>;
}

function gatewayTools(
  config: GatewayConfig,
  manifests: readonly ManifestPolicy[],
  exposed: readonly ExposedTool[],
): GatewayTool[] {
  const tools: GatewayTool[] = [];
  for (const tool of exposed) {
    const policy = resolveToolPolicy({
      config,
      manifests,
      tool: { name: tool.originalName, exposedName: tool.name, annotations: tool.annotations },
    });
    if (policy === undefined) continue;
    tools.push({
      name: tool.name,
      upstream: tool.upstream,
      upstreamName: tool.originalName,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
      policy,
    });
  }
  return tools;
}

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/** A connected server, the gateway tools registered on it, and the scopes its composition declares. */
interface LiveServer {
  readonly server: ExtendedServer;
  tools: readonly GatewayTool[];
  readonly scopes: ReadonlySet<string>;
}

/** The scopes a composition for `tools` declares: every scope their policies name. */
function declaredScopeNames(tools: readonly GatewayTool[]): ReadonlySet<string> {
  return new Set(tools.flatMap((tool) => tool.policy.scopes));
}

/** Removes tools registered on `mcp` (the SDK keeps the handles that remove them private). */
function removeTools(mcp: McpServer, tools: readonly GatewayTool[]): void {
  const registered = Reflect.get(mcp, '_registeredTools') as Record<string, { remove(): void } | undefined>;
  for (const tool of tools) registered[tool.name]?.remove();
}

/**
 * A server that outlives a change of tools (a 2025-era session, stdio)
 * swaps its tools for `tools`, then tells its client the list changed. A
 * tool needing a scope the server's composition was built without is
 * withheld: that composition could not check it (GW-19). Returns the names
 * withheld.
 */
function retool(
  mcp: McpServer,
  entry: LiveServer,
  tools: readonly GatewayTool[],
  context: { readonly callUpstream: CallUpstream; readonly logger: Logger },
): string[] {
  const usable = tools.filter((tool) => tool.policy.scopes.every((scope) => entry.scopes.has(scope)));
  try {
    removeTools(mcp, entry.tools);
    registerGatewayTools(entry.server, usable, context.callUpstream);
    entry.tools = usable;
    mcp.sendToolListChanged();
  } catch (error) {
    context.logger.warn('gateway: could not give a connected client the changed tools', { error: String(error) });
  }
  return tools.filter((tool) => !usable.includes(tool)).map((tool) => tool.name);
}

/** Logs, once per change, the tools connected sessions were not given, and why. */
function reportWithheld(withheld: readonly string[][], logger: Logger): void {
  const sessions = withheld.filter((names) => names.length > 0);
  if (sessions.length === 0) return;
  const names = [...new Set(sessions.flat())].sort();
  logger.warn(
    `gateway: ${String(sessions.length)} connected session(s) were not given ${names.join(', ')}: the tools need scopes those sessions were set up without; a new session gets them`,
  );
}

/** Checks the config (GW-1), connects the upstreams and starts offering their tools under the config's policy. */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  checkConfig(config);
  const logger = options.logger ?? consoleLogger;
  const manifests = options.manifests ?? [];
  const name = config.name ?? DEFAULT_NAME;
  const pool = await UpstreamPool.connect(config.upstreams, { logger, clientInfo: { name, version: VERSION } });
  const store = options.store ?? (await openStore(config.store, logger));
  const ownsStore = options.store === undefined;
  const callUpstream: CallUpstream = async (upstream, tool, args, { signal }) => {
    const connection = pool.connection(upstream);
    if (connection === undefined) throw new Error(`no upstream named ${upstream}`);
    return await connection.callTool(tool, args, { signal });
  };
  const scopeDescriptions = Object.fromEntries(
    declaredScopes(manifests).map((scope) => [scope.name, scope.description]),
  );
  const offer = async (): Promise<Offer> => {
    const tools = gatewayTools(config, manifests, await pool.tools());
    return { tools, composed: composeGateway({ config, tools, callUpstream, scopeDescriptions, logger }) };
  };
  let current = await offer();
  // Servers still connected, with the tools registered on them: told, and given the new tools, when they change.
  const live = new Map<McpServer, LiveServer>();

  const createServer = (): McpServer => {
    const { tools, composed } = current;
    // The removals and registrations of one change of tools reach the client as one notification.
    const mcp = new McpServer({ name, version: VERSION }, { debouncedNotificationMethods: [TOOLS_CHANGED] });
    const server = extendServer(mcp, composed, { store, logger });
    registerGatewayTools(server, tools, callUpstream);
    live.set(mcp, { server, tools, scopes: declaredScopeNames(tools) });
    mcp.server.onclose = () => live.delete(mcp);
    return mcp;
  };

  // Built on first use: a gateway served over stdio needs no way to identify HTTP callers.
  let handler: NotifyingHttpHandler | undefined;
  pool.onToolsChanged(() => {
    offer().then(
      (next) => {
        current = next;
        const withheld = [...live].map(([mcp, entry]) => retool(mcp, entry, next.tools, { callUpstream, logger }));
        reportWithheld(withheld, logger);
        handler?.toolsChanged();
      },
      (error: unknown) => {
        logger.warn('gateway: could not take up the changed tools of an upstream', { error });
      },
    );
  });

  return {
    get tools() {
      return current.tools;
    },
    get composed() {
      return current.composed;
    },
    store,
    createServer,
    get http() {
      handler ??= createHttpHandler(createServer, { ...callerIdentification(config.identity, { logger }), logger });
      return handler;
    },
    close: async () => {
      await handler?.close();
      await pool.close();
      if (ownsStore) await store.close();
    },
  };
}
