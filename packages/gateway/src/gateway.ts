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
import { gatewayApprovals, type GatewayApprovals } from './approvals.js';
import { callerIdentification, type CallerIdentification } from './identity.js';
import { declaredScopes, type ManifestPolicy } from './policy/manifest.js';
import { filterToolList } from './policy/listing.js';
import { resolveToolPolicy } from './policy/resolve.js';
import type { PolicyLookup, Withheld } from './policy/stage.js';
import { openPinSource } from './pins/pin-source.js';
import { DEFAULT_ON_TOOL_CHANGE } from './pins/pins-config.js';
import { withheldTools, type PinReview } from './pins/withheld.js';
import { redactingLogger } from './redact/redacting-logger.js';
import { createRedactor } from './redact/redactor.js';
import { redactedError, type ToolRedaction } from './redact/tool-results.js';
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

/** What the gateway offers right now: its tools with their policies, the ones withheld, and the composition built for them. */
interface Offer {
  readonly tools: readonly GatewayTool[];
  readonly byName: ReadonlyMap<string, GatewayTool>;
  /** Tools whose upstream changed them since they were pinned: registered, never listed, every call refused (GW-28). */
  readonly withheld: ReadonlyMap<string, Withheld>;
  readonly composed: ComposedServer;
}

/** How often the pins of withheld tools are read again, so an operator's `tools accept` takes effect without a restart. */
const PIN_RECHECK_MS = 5_000;

export interface Gateway {
  /** The tools offered now, each with the policy that applies. */
  readonly tools: readonly GatewayTool[];
  readonly composed: ComposedServer;
  readonly store: Store;
  /** A new downstream server (SDK v2 `McpServer`): one per stdio connection, or per request behind HTTP. */
  createServer(): McpServer;
  /**
   * The Streamable HTTP handler (both eras), identifying callers as the
   * config says, with the approvals page beside it (`pages`); serve it with
   * core's `listen`.
   */
  readonly http: DualEraHttpHandler & { readonly pages?: (request: Request) => Promise<Response | undefined> };
  /** Calls held for an operator (`approvals` in the config): decide them with `approvals.desk.decide`. */
  readonly approvals: GatewayApprovals | undefined;
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

/** Whether a rebuilt offer names the same tools and withholds the same ones (a pin recheck that found no acceptance). */
function sameTools(before: Offer, after: Offer): boolean {
  const names = (offer: Offer) => [...offer.byName.keys(), '|', ...offer.withheld.keys()].join('\n');
  return names(before) === names(after);
}

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
  context: { readonly callUpstream: CallUpstream; readonly logger: Logger; readonly redaction: ToolRedaction },
): string[] {
  const usable = tools.filter((tool) => tool.policy.scopes.every((scope) => entry.scopes.has(scope)));
  try {
    removeTools(mcp, entry.tools);
    registerGatewayTools(entry.server, usable, context.callUpstream, { redaction: context.redaction });
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
  // The config check refused any pattern the redactor would (GW-26); every part gets the redacting logger (GW-24).
  const redactor = createRedactor({ patterns: config.redact?.patterns });
  const redaction: ToolRedaction = { redactor, results: config.redact?.results !== false };
  const logger = redactingLogger(options.logger ?? consoleLogger, redactor);
  const manifests = options.manifests ?? [];
  const name = config.name ?? DEFAULT_NAME;
  const pool = await UpstreamPool.connect(config.upstreams, { logger, clientInfo: { name, version: VERSION } });
  const store = options.store ?? (await openStore(config.store, logger));
  const ownsStore = options.store === undefined;
  const callUpstream: CallUpstream = async (upstream, tool, args, { signal }) => {
    const connection = pool.connection(upstream);
    if (connection === undefined) throw new Error(`no upstream named ${upstream}`);
    try {
      return await connection.callTool(tool, args, { signal });
    } catch (error) {
      // Its error reaches the client, the log and the trace alike: redacted whatever `redact.results` says (GW-24).
      throw redactedError(redactor, error);
    }
  };
  const scopeDescriptions = Object.fromEntries(
    declaredScopes(manifests).map((scope) => [scope.name, scope.description]),
  );
  const pins: PinReview = {
    source: await openPinSource({ lockFile: config.pins?.lockFile, store }),
    onToolChange: config.pins?.onToolChange ?? DEFAULT_ON_TOOL_CHANGE,
    logger,
    warned: new Map(),
  };
  // The policy stage and the tool lists read the current offer, whichever composition a server was built with.
  const lookup: PolicyLookup = {
    policy: (tool) => current.byName.get(tool)?.policy,
    withheld: (tool) => current.withheld.get(tool),
  };
  // Built on first use: a gateway served over stdio needs no way to identify HTTP callers.
  let identification: CallerIdentification | undefined;
  const identify = () => (identification ??= callerIdentification(config.identity, { logger }));
  const approvals = gatewayApprovals({ config, store, lookup, identification: identify, logger });
  const offer = async (before: ReadonlyMap<string, Withheld>): Promise<Offer> => {
    const exposed = await pool.tools();
    const withheld = await withheldTools(exposed, pins, before);
    const tools = gatewayTools(config, manifests, exposed);
    const composed = composeGateway({
      config,
      tools,
      callUpstream,
      scopeDescriptions,
      logger,
      redactor,
      policy: lookup,
      approvals: approvals?.confirmation,
    });
    return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])), withheld, composed };
  };
  let current: Offer = await offer(new Map());
  // Servers still connected, with the tools registered on them: told, and given the new tools, when they change.
  const live = new Map<McpServer, LiveServer>();

  const createServer = (): McpServer => {
    const { tools, composed } = current;
    // The removals and registrations of one change of tools reach the client as one notification.
    const mcp = new McpServer({ name, version: VERSION }, { debouncedNotificationMethods: [TOOLS_CHANGED] });
    const server = extendServer(mcp, composed, { store, logger });
    registerGatewayTools(server, tools, callUpstream, { redaction });
    filterToolList(mcp, lookup);
    live.set(mcp, { server, tools, scopes: declaredScopeNames(tools) });
    mcp.server.onclose = () => live.delete(mcp);
    return mcp;
  };

  let handler: NotifyingHttpHandler | undefined;
  // `recheck`: only the pins may have changed (an operator accepted a tool); nothing to tell clients if not.
  const refresh = (recheck: boolean) => {
    offer(current.withheld).then(
      (next) => {
        if (recheck && sameTools(current, next)) return;
        current = next;
        const withheld = [...live].map(([mcp, entry]) =>
          retool(mcp, entry, next.tools, { callUpstream, logger, redaction }),
        );
        reportWithheld(withheld, logger);
        handler?.toolsChanged();
      },
      (error: unknown) => {
        logger.warn('gateway: could not take up the changed tools of an upstream', { error });
      },
    );
  };
  pool.onToolsChanged(() => {
    refresh(false);
  });
  const recheck = setInterval(() => {
    if (current.withheld.size > 0) refresh(true);
  }, PIN_RECHECK_MS);
  recheck.unref();

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
      handler ??= createHttpHandler(createServer, { ...identify(), logger });
      return approvals === undefined
        ? handler
        : Object.assign(handler, { pages: (request: Request) => approvals.fetch(request) });
    },
    approvals,
    close: async () => {
      clearInterval(recheck);
      // Webhooks already under way are delivered before the store they read closes.
      await approvals?.desk.drain();
      await handler?.close();
      await pool.close();
      if (ownsStore) await store.close();
    },
  };
}
