/**
 * The gateway: connects to the upstreams a config names, resolves each
 * upstream tool's policy, composes the extension family for them, and builds
 * downstream servers (one per stdio connection, or per request behind HTTP)
 * on which every proxied call runs through the pipeline. When an upstream's
 * tools change, the tools and the composition are rebuilt and connected
 * clients are told (`notifications/tools/list_changed`).
 */
import { consoleLogger, type ComposedServer, type Logger, type ServerExtension, type Store } from '@ext/core';
import {
  createHttpHandler,
  extendServer,
  type DualEraHttpHandler,
  type NotifyingHttpHandler,
} from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { checkConfig } from './config/load.js';
import { GatewayConfigError } from './config/errors.js';
import type { GatewayConfig } from './config/schema.js';
import { composeGateway } from './compose.js';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import { offeredTools } from './offered-tools.js';
import { gatewayApprovals, type GatewayApprovals } from './approvals.js';
import { callerIdentification, type CallerIdentification } from './identity.js';
import { localScopes } from './local-caller.js';
import { declaredScopes, type ManifestPolicy } from './policy/manifest.js';
import { filterToolList } from './policy/listing.js';
import type { PolicyLookup, Withheld } from './policy/stage.js';
import { openPinSource } from './pins/pin-source.js';
import { DEFAULT_ON_TOOL_CHANGE } from './pins/pins-config.js';
import { withheldTools, type PinReview } from './pins/withheld.js';
import { redactingLogger } from './redact/redacting-logger.js';
import { createRedactor } from './redact/redactor.js';
import { redactedError, type ToolRedaction } from './redact/tool-results.js';
import { openStore } from './store.js';
import { registerGatewayTools } from './tools.js';
import { declaredScopeNames, reportWithheld, retool, type LiveServer } from './live-servers.js';
import { UpstreamPool } from './upstream/index.js';
import { gatewayOperations } from './metrics/operations.js';
import { policyVersion, reloadPlan, type ReloadPlan } from './reload/plan.js';
import { retireConnections, upstreamsAfterReload } from './reload/upstreams.js';

/** The gateway's name and version as servers (downstream) and as a client (upstream). */
const DEFAULT_NAME = 'mcp-ext-gateway';
const VERSION = '0.1.0';

export interface GatewayOptions {
  /** The manifests the config names, loaded (`loadConfig` returns them). */
  readonly manifests?: readonly ManifestPolicy[] | undefined;
  /** Overrides the config's store (tests, or a store the application owns). */
  readonly store?: Store | undefined;
  readonly logger?: Logger | undefined;
  /**
   * Server halves of the deployment's own, composed with the gateway's (an
   * audit log, a rate shaper): each runs where its placement says (core
   * CORE-50), under the gateway's errors stage (GW-55).
   */
  readonly extensions?: readonly ServerExtension[] | undefined;
}

/** What the gateway offers right now: its tools with their policies, the ones withheld, and the composition built for them. */
interface Offer {
  readonly tools: readonly GatewayTool[];
  readonly byName: ReadonlyMap<string, GatewayTool>;
  /** Tools whose upstream changed them since they were pinned: registered, never listed, every call refused (GW-28). */
  readonly withheld: ReadonlyMap<string, Withheld>;
  readonly composed: ComposedServer;
  /** The version of the policy it was resolved under (GW-50). */
  readonly version: string;
}

/** What a reload took up: the new policy version and what became of the upstreams. */
export interface ReloadOutcome {
  readonly version: string;
  readonly plan: ReloadPlan;
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
   * config says, with the probes, the metrics and the approvals page beside it (`pages`); serve it with
   * core's `listen`.
   */
  readonly http: DualEraHttpHandler & { readonly pages?: (request: Request) => Promise<Response | undefined> };
  /** Calls held for an operator (`approvals` in the config): decide them with `approvals.desk.decide`. */
  readonly approvals: GatewayApprovals | undefined;
  /** Where the metrics, `/healthz` and `/readyz` are served apart from the MCP endpoint (`metrics.listen`). */
  readonly metricsUrl: URL | undefined;
  /** The version of the policy in force (GW-50). */
  readonly policyVersion: string;
  /**
   * Takes up a new config while serving (GW-49): checks it and builds
   * everything it needs first, then swaps it in at once; calls under way
   * finish under the policy that admitted them. Throws, changing nothing,
   * when the config is invalid, changes a field only a restart can, or its
   * tools cannot be offered. Reloads run one at a time.
   */
  reload(config: GatewayConfig, manifests?: readonly ManifestPolicy[]): Promise<ReloadOutcome>;
  /** Stops serving: closes the upstreams (child processes included) and the store the gateway opened. */
  close(): Promise<void>;
}

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/** Whether a rebuilt offer names the same tools and withholds the same ones (a pin recheck that found no acceptance). */
function sameTools(before: Offer, after: Offer): boolean {
  const names = (offer: Offer) => [...offer.byName.keys(), '|', ...offer.withheld.keys()].join('\n');
  return names(before) === names(after);
}

/** A restart-only field changed: the reload is refused as a whole, naming it. */
function restartNeeded(fields: readonly string[]): GatewayConfigError {
  const [field = ''] = fields;
  return new GatewayConfigError(
    `${fields.join(', ')} changed: a running gateway cannot take that up; restart it to apply this config (nothing was reloaded)`,
    { field, pointer: `/${field}` },
  );
}

/**
 * Checks the config (GW-1), connects the upstreams and starts offering their
 * tools under the config's policy. A start that fails closes what it had
 * opened (upstream processes, the store) before it throws (GW-34).
 */
export async function createGateway(initial: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const opened: (() => Promise<void>)[] = [];
  try {
    return await startGateway(initial, options, opened);
  } catch (error) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  }
}

/** `createGateway`'s start; registers in `opened` how to close what it opens, for a start that fails. */
async function startGateway(
  initial: GatewayConfig,
  options: GatewayOptions,
  opened: (() => Promise<void>)[],
): Promise<Gateway> {
  checkConfig(initial);
  // What a reload may replace; everything else is read from the config the gateway started with.
  let config = initial;
  let manifests = options.manifests ?? [];
  // The config check refused any pattern the redactor would (GW-26); every part gets the redacting logger (GW-24).
  const redactor = createRedactor({ patterns: config.redact?.patterns });
  const redaction: ToolRedaction = { redactor, results: config.redact?.results !== false };
  const logger = redactingLogger(options.logger ?? consoleLogger, redactor);
  const name = config.name ?? DEFAULT_NAME;
  // Calls, upstreams and the store told to the metrics; health and readiness are served whatever the config says.
  const operations = gatewayOperations(config.metrics, logger);
  const connectOptions = { logger, clientInfo: { name, version: VERSION }, recorder: operations.recorder };
  let pool = await UpstreamPool.connect(config.upstreams, connectOptions);
  opened.push(() => pool.close());
  // Calls under way per upstream connection: a connection a reload replaced closes once they are done.
  const inFlight = new Map<object, Set<Promise<unknown>>>();
  const store = operations.observedStore(options.store ?? (await openStore(config.store, logger)));
  const ownsStore = options.store === undefined;
  if (ownsStore) opened.push(() => store.close());
  const callUpstream: CallUpstream = async (upstream, tool, args, { signal, retry }) => {
    const connection = pool.connection(upstream);
    if (connection === undefined) throw new Error(`no upstream named ${upstream}`);
    const calls = inFlight.get(connection) ?? new Set();
    inFlight.set(connection, calls);
    const call = connection.callTool(tool, args, { signal, ...retry });
    calls.add(call);
    try {
      return await call;
    } catch (error) {
      // Its error reaches the client, the log and the trace alike: redacted whatever `redact.results` says (GW-24).
      throw redactedError(redactor, error);
    } finally {
      calls.delete(call);
    }
  };
  const scopeDescriptions = () =>
    Object.fromEntries(declaredScopes(manifests).map((scope) => [scope.name, scope.description]));
  const pins: PinReview = {
    source: await openPinSource({ lockFile: config.pins?.lockFile, store }),
    onToolChange: config.pins?.onToolChange ?? DEFAULT_ON_TOOL_CHANGE,
    logger,
    warned: new Map(),
  };
  // The policy stage and the tool lists read the current offer, whichever composition a server was built with.
  const lookup: PolicyLookup = {
    policy: (tool) => current.byName.get(tool)?.policy,
    // Withheld under the upstream's exposed name, which `as` may have changed (GW-51).
    withheld: (tool) => current.withheld.get(current.byName.get(tool)?.policy.exposedName ?? tool),
    get version() {
      return current.version;
    },
  };
  // Built on first use: a gateway served over stdio needs no way to identify HTTP callers.
  let identification: CallerIdentification | undefined;
  const identify = () => (identification ??= callerIdentification(config.identity, { logger }));
  const approvals = gatewayApprovals({
    config,
    store,
    lookup,
    identification: identify,
    logger,
    backends: operations.approvalBackends,
  });
  // Built from the config, manifests and pool given, so a reload can build the next offer before it takes effect.
  const offer = async (before: ReadonlyMap<string, Withheld>, from = { config, manifests, pool }): Promise<Offer> => {
    const exposed = await from.pool.tools();
    const withheld = await withheldTools(exposed, pins, before);
    const tools = offeredTools(from.config, from.manifests, exposed);
    const version = policyVersion(from.config, from.manifests);
    const composed = operations.observeCalls(
      composeGateway({
        config: from.config,
        tools,
        callUpstream,
        scopeDescriptions: scopeDescriptions(),
        logger,
        redactor,
        policy: lookup,
        approvals: approvals && { ...approvals.confirmation, policyVersion: version },
        extensions: options.extensions,
      }),
      (tool) => current.byName.get(tool),
    );
    return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])), withheld, composed, version };
  };
  let current: Offer = await offer(new Map());
  opened.push(() => operations.close());
  await operations.start({ store, upstreams: () => pool.upstreams, identification: identify, desk: approvals?.desk });
  // Servers still connected, with the tools registered on them: told, and given the new tools, when they change.
  const live = new Map<McpServer, LiveServer>();

  const createServer = (): McpServer => {
    const { tools, composed } = current;
    // The removals and registrations of one change of tools reach the client as one notification.
    const mcp = new McpServer({ name, version: VERSION }, { debouncedNotificationMethods: [TOOLS_CHANGED] });
    // Over stdio the one client holds the scopes identity.stdio grants (GW-35); HTTP callers hold their own.
    const server = extendServer(mcp, composed, { store, logger, localScopes: localScopes(config.identity) });
    registerGatewayTools(server, tools, callUpstream, { redaction, policyVersion: current.version });
    filterToolList(mcp, lookup, localScopes(config.identity));
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
        takeUp(next);
      },
      (error: unknown) => {
        logger.warn('gateway: could not take up the changed tools of an upstream', { error });
      },
    );
  };
  // Gives connected servers the tools of `next`, which becomes the current offer.
  const takeUp = (next: Offer) => {
    current = next;
    const withheld = [...live].map(([mcp, entry]) =>
      retool(mcp, entry, next.tools, { callUpstream, logger, redaction, policyVersion: next.version }),
    );
    reportWithheld(withheld, logger);
    handler?.toolsChanged();
  };
  const onToolsChanged = () => {
    refresh(false);
  };
  let stopToolWatch = pool.onToolsChanged(onToolsChanged);

  const applyReload = async (next: GatewayConfig, nextManifests: readonly ManifestPolicy[]): Promise<ReloadOutcome> => {
    checkConfig(next);
    const plan = reloadPlan(config, next);
    if (plan.restartFields.length > 0) throw restartNeeded(plan.restartFields);
    const upstreams = await upstreamsAfterReload(pool, next.upstreams, plan, connectOptions);
    let nextOffer: Offer;
    try {
      nextOffer = await offer(current.withheld, { config: next, manifests: nextManifests, pool: upstreams.pool });
    } catch (error) {
      await upstreams.discard();
      throw error;
    }
    // Nothing above changed what is served; from here on, in one turn, the new config is in force.
    const retired = plan.removed.concat(plan.changed).flatMap((upstream) => pool.connection(upstream) ?? []);
    stopToolWatch();
    pool = upstreams.pool;
    config = next;
    manifests = nextManifests;
    stopToolWatch = pool.onToolsChanged(onToolsChanged);
    takeUp(nextOffer);
    retiring.add(retireConnections(retired, inFlight, logger));
    return { version: nextOffer.version, plan };
  };
  let reloads: Promise<unknown> = Promise.resolve();
  // Connections a reload replaced, closing once their calls are done: close waits for them.
  const retiring = new Set<Promise<void>>();
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
      // Health, readiness and the metrics beside the MCP endpoint, then the approvals page.
      const pages = async (request: Request) => (await operations.pages(request)) ?? approvals?.fetch(request);
      return Object.assign(handler, { pages });
    },
    get metricsUrl() {
      return operations.url;
    },
    approvals,
    get policyVersion() {
      return current.version;
    },
    reload: (next, nextManifests = []) => {
      const outcome = reloads.then(() => applyReload(next, nextManifests));
      reloads = outcome.catch(() => undefined);
      return outcome;
    },
    close: async () => {
      clearInterval(recheck);
      await reloads;
      stopToolWatch();
      await Promise.all(retiring);
      // Webhooks already under way are delivered before the store they read closes.
      await approvals?.desk.drain();
      await operations.close();
      await handler?.close();
      await pool.close();
      if (ownsStore) await store.close();
    },
  };
}
