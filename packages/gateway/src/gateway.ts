/**
 * The gateway: connects to the upstreams a config names, resolves each
 * upstream tool's policy, composes the extension family for them, and builds
 * downstream servers (one per stdio connection, or per request behind HTTP)
 * on which every proxied call runs through the pipeline. When an upstream's
 * tools change, the tools and the composition are rebuilt and connected
 * clients are told (`notifications/tools/list_changed`).
 */
import { consoleLogger } from '@ext/core/kit';
import { type ComposedServer, type Logger, type ServerExtension, type Store } from '@ext/core';
import type { DualEraHttpHandler } from '@ext/core/sdk-v2/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { checkConfig } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayTool } from './gateway-tool.js';
import { GatewayRuntime, type ReloadOutcome } from './gateway-runtime.js';
import type { GatewayApprovals } from './approvals.js';
import type { ManifestPolicy } from './policy/manifest.js';
import { openPinSource } from './pins/pin-source.js';
import { DEFAULT_ON_TOOL_CHANGE } from './pins/pins-config.js';
import type { PinReview } from './pins/withheld.js';
import { redactingLogger } from './redact/redacting-logger.js';
import { createRedactor } from './redact/redactor.js';
import type { ToolRedaction } from './redact/tool-results.js';
import { openStore } from './store.js';
import { UpstreamPool } from './upstream/index.js';
import { gatewayOperations, type GatewayOperations } from './metrics/operations.js';

export type { ReloadOutcome } from './gateway-runtime.js';

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

/** The handle `createGateway` returns, reading the runtime's offer in force. */
function gatewayHandle(runtime: GatewayRuntime, store: Store, operations: GatewayOperations): Gateway {
  return {
    get tools() {
      return runtime.current.tools;
    },
    get composed() {
      return runtime.current.composed;
    },
    store,
    createServer: () => runtime.createServer(),
    get http() {
      return runtime.http();
    },
    get metricsUrl() {
      return operations.url;
    },
    approvals: runtime.approvals,
    get policyVersion() {
      return runtime.current.version;
    },
    reload: (next, nextManifests = []) => runtime.reload(next, nextManifests),
    close: () => runtime.close(),
  };
}

/** `createGateway`'s start; registers in `opened` how to close what it opens, for a start that fails. */
async function startGateway(
  config: GatewayConfig,
  options: GatewayOptions,
  opened: (() => Promise<void>)[],
): Promise<Gateway> {
  checkConfig(config);
  // The config check refused any pattern the redactor would (GW-26); every part gets the redacting logger (GW-24).
  const redactor = createRedactor({ patterns: config.redact?.patterns });
  const redaction: ToolRedaction = { redactor, results: config.redact?.results !== false };
  const logger = redactingLogger(options.logger ?? consoleLogger, redactor);
  const name = config.name ?? DEFAULT_NAME;
  // Calls, upstreams and the store told to the metrics; health and readiness are served whatever the config says.
  const operations = gatewayOperations(config.metrics, logger);
  const connectOptions = { logger, clientInfo: { name, version: VERSION }, recorder: operations.recorder };
  const pool = await UpstreamPool.connect(config.upstreams, connectOptions);
  opened.push(() => pool.close());
  const store = operations.observedStore(options.store ?? (await openStore(config.store, logger)));
  const ownsStore = options.store === undefined;
  if (ownsStore) opened.push(() => store.close());
  const pins: PinReview = {
    source: await openPinSource({ lockFile: config.pins?.lockFile, store }),
    onToolChange: config.pins?.onToolChange ?? DEFAULT_ON_TOOL_CHANGE,
    logger,
    warned: new Map(),
  };
  const runtime = new GatewayRuntime(
    { config, manifests: options.manifests ?? [], pool },
    {
      name,
      version: VERSION,
      logger,
      redactor,
      redaction,
      operations,
      connectOptions,
      store,
      ownsStore,
      pins,
      extensions: options.extensions,
    },
  );
  await runtime.start();
  opened.push(() => operations.close());
  await operations.start({
    store,
    upstreams: () => runtime.pool.upstreams,
    identification: () => runtime.identify(),
    desk: runtime.approvals?.desk,
  });
  runtime.watch();
  return gatewayHandle(runtime, store, operations);
}
