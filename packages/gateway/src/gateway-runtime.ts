/**
 * The running gateway: the config, manifests and upstreams in force (a
 * reload replaces them in one step), the offer built from them and rebuilt
 * when an upstream's tools or a withheld tool's pin change, the downstream
 * servers connected (told, and given the new tools, when they change), the
 * calls under way per upstream connection, and the order everything closes
 * in.
 */
import type { Logger, ServerExtension, Store } from '@ext/core';
import { createHttpHandler, extendServer, type NotifyingHttpHandler } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { gatewayApprovals, type GatewayApprovals } from './approvals.js';
import { GatewayConfigError } from './config/errors.js';
import { checkConfig } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import type { CallUpstream } from './gateway-tool.js';
import { callerIdentification, type CallerIdentification } from './identity.js';
import { declaredScopeNames, reportWithheld, retool, type LiveServer } from './live-servers.js';
import { localScopes } from './local-caller.js';
import type { GatewayOperations } from './metrics/operations.js';
import { buildOffer, offerLookup, sameTools, type Offer, type OfferParts, type OfferSources } from './offer.js';
import type { PinReview } from './pins/withheld.js';
import { filterToolList } from './policy/listing.js';
import { declaredScopes, type ManifestPolicy } from './policy/manifest.js';
import type { PolicyLookup, Withheld } from './policy/stage.js';
import type { Redactor } from './redact/redactor.js';
import { redactedError, type ToolRedaction } from './redact/tool-results.js';
import { reloadPlan, type ReloadPlan } from './reload/plan.js';
import { retireConnections, upstreamsAfterReload } from './reload/upstreams.js';
import { registerGatewayTools } from './tools.js';
import type { ConnectUpstreamOptions, UpstreamPool } from './upstream/index.js';

/** How often the pins of withheld tools are read again, so an operator's `tools accept` takes effect without a restart. */
const PIN_RECHECK_MS = 5_000;

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/** What a reload took up: the new policy version and what became of the upstreams. */
export interface ReloadOutcome {
  readonly version: string;
  readonly plan: ReloadPlan;
}

/** What the gateway runs with, set up once at its start. */
export interface RuntimeParts {
  /** The gateway's name and version as servers (downstream). */
  readonly name: string;
  readonly version: string;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly redaction: ToolRedaction;
  readonly operations: GatewayOperations;
  readonly connectOptions: ConnectUpstreamOptions;
  readonly store: Store;
  /** Whether the gateway opened the store (and so closes it). */
  readonly ownsStore: boolean;
  readonly pins: PinReview;
  readonly extensions: readonly ServerExtension[] | undefined;
}

/** A restart-only field changed: the reload is refused as a whole, naming it. */
function restartNeeded(fields: readonly string[]): GatewayConfigError {
  const [field = ''] = fields;
  return new GatewayConfigError(
    `${fields.join(', ')} changed: a running gateway cannot take that up; restart it to apply this config (nothing was reloaded)`,
    { field, pointer: `/${field}` },
  );
}

export class GatewayRuntime {
  readonly #parts: RuntimeParts;
  // What a reload may replace; everything else is read from the config the gateway started with.
  #config: GatewayConfig;
  #manifests: readonly ManifestPolicy[];
  #pool: UpstreamPool;
  /** Set by `start`, before anything reads it. */
  #current!: Offer;
  readonly #offerParts: OfferParts;
  /** Calls under way per upstream connection: a connection a reload replaced closes once they are done. */
  readonly #inFlight = new Map<object, Set<Promise<unknown>>>();
  /** Servers still connected, with the tools registered on them: told, and given the new tools, when they change. */
  readonly #live = new Map<McpServer, LiveServer>();
  #identification: CallerIdentification | undefined;
  #handler: NotifyingHttpHandler | undefined;
  #stopToolWatch: () => void = () => undefined;
  #recheck: NodeJS.Timeout | undefined;
  #reloads: Promise<unknown> = Promise.resolve();
  /** Connections a reload replaced, closing once their calls are done: close waits for them. */
  readonly #retiring = new Set<Promise<void>>();
  readonly callUpstream: CallUpstream;
  /** The policy stage and the tool lists read the current offer, whichever composition a server was built with. */
  readonly lookup: PolicyLookup;
  readonly approvals: GatewayApprovals | undefined;

  constructor(sources: OfferSources, parts: RuntimeParts) {
    this.#parts = parts;
    this.#config = sources.config;
    this.#manifests = sources.manifests;
    this.#pool = sources.pool;
    this.callUpstream = (upstream, tool, args, options) => this.#call(upstream, tool, args, options);
    this.lookup = offerLookup(() => this.#current);
    const { store, logger, operations } = parts;
    this.approvals = gatewayApprovals({
      config: sources.config,
      store,
      lookup: this.lookup,
      identification: () => this.identify(),
      logger,
      backends: operations.approvalBackends,
    });
    this.#offerParts = {
      callUpstream: this.callUpstream,
      logger,
      redactor: parts.redactor,
      pins: parts.pins,
      operations,
      extensions: parts.extensions,
      lookup: this.lookup,
      approvals: this.approvals,
      scopeDescriptions: () =>
        Object.fromEntries(declaredScopes(this.#manifests).map((scope) => [scope.name, scope.description])),
      toolOf: (tool) => this.#current.byName.get(tool),
    };
  }

  /** The offer in force. */
  get current(): Offer {
    return this.#current;
  }

  get pool(): UpstreamPool {
    return this.#pool;
  }

  /** Builds the first offer. */
  async start(): Promise<void> {
    this.#current = await this.#offer(new Map());
  }

  /** Built on first use: a gateway served over stdio needs no way to identify HTTP callers. */
  identify(): CallerIdentification {
    return (this.#identification ??= callerIdentification(this.#config.identity, { logger: this.#parts.logger }));
  }

  async #call(
    upstream: string,
    tool: string,
    args: Record<string, unknown>,
    { signal, retry }: Parameters<CallUpstream>[3],
  ): ReturnType<CallUpstream> {
    const connection = this.#pool.connection(upstream);
    if (connection === undefined) throw new Error(`no upstream named ${upstream}`);
    const calls = this.#inFlight.get(connection) ?? new Set();
    this.#inFlight.set(connection, calls);
    const call = connection.callTool(tool, args, { signal, ...retry });
    calls.add(call);
    try {
      return await call;
    } catch (error) {
      // Its error reaches the client, the log and the trace alike: redacted whatever `redact.results` says (GW-24).
      throw redactedError(this.#parts.redactor, error);
    } finally {
      calls.delete(call);
    }
  }

  /** Built from the config, manifests and pool given (those in force by default). */
  #offer(before: ReadonlyMap<string, Withheld>, from?: OfferSources): Promise<Offer> {
    return buildOffer(
      this.#offerParts,
      before,
      from ?? { config: this.#config, manifests: this.#manifests, pool: this.#pool },
    );
  }

  /** A new downstream server (SDK v2 `McpServer`): one per stdio connection, or per request behind HTTP. */
  createServer(): McpServer {
    const { tools, composed } = this.#current;
    const { name, version, store, logger, redaction } = this.#parts;
    // The removals and registrations of one change of tools reach the client as one notification.
    const mcp = new McpServer({ name, version }, { debouncedNotificationMethods: [TOOLS_CHANGED] });
    // Over stdio the one client holds the scopes identity.stdio grants (GW-35); HTTP callers hold their own.
    const server = extendServer(mcp, composed, { store, logger, localScopes: localScopes(this.#config.identity) });
    registerGatewayTools(server, tools, this.callUpstream, { redaction, policyVersion: this.#current.version });
    filterToolList(mcp, this.lookup, localScopes(this.#config.identity));
    this.#live.set(mcp, { server, tools, scopes: declaredScopeNames(tools) });
    mcp.server.onclose = () => this.#live.delete(mcp);
    return mcp;
  }

  /** The Streamable HTTP handler, built on first use, with the pages served beside it. */
  http(): NotifyingHttpHandler & { readonly pages: (request: Request) => Promise<Response | undefined> } {
    const { logger, operations } = this.#parts;
    this.#handler ??= createHttpHandler(() => this.createServer(), { ...this.identify(), logger });
    // Health, readiness and the metrics beside the MCP endpoint, then the approvals page.
    const pages = async (request: Request) => (await operations.pages(request)) ?? this.approvals?.fetch(request);
    return Object.assign(this.#handler, { pages });
  }

  /** `recheck`: only the pins may have changed (an operator accepted a tool); nothing to tell clients if not. */
  #refresh(recheck: boolean): void {
    this.#offer(this.#current.withheld).then(
      (next) => {
        if (recheck && sameTools(this.#current, next)) return;
        this.#current = next;
        this.#takeUp(next);
      },
      (error: unknown) => {
        this.#parts.logger.warn('gateway: could not take up the changed tools of an upstream', { error });
      },
    );
  }

  /** Gives connected servers the tools of `next`, which becomes the current offer. */
  #takeUp(next: Offer): void {
    this.#current = next;
    const { logger, redaction } = this.#parts;
    const withheld = [...this.#live].map(([mcp, entry]) =>
      retool(mcp, entry, next.tools, {
        callUpstream: this.callUpstream,
        logger,
        redaction,
        policyVersion: next.version,
      }),
    );
    reportWithheld(withheld, logger);
    this.#handler?.toolsChanged();
  }

  readonly #onToolsChanged = (): void => {
    this.#refresh(false);
  };

  /** Starts following the upstreams' tool changes and rechecking the pins of withheld tools. */
  watch(): void {
    this.#stopToolWatch = this.#pool.onToolsChanged(this.#onToolsChanged);
    this.#recheck = setInterval(() => {
      if (this.#current.withheld.size > 0) this.#refresh(true);
    }, PIN_RECHECK_MS);
    this.#recheck.unref();
  }

  /** Takes up `next` once the reloads before it are done (one at a time). */
  reload(next: GatewayConfig, nextManifests: readonly ManifestPolicy[]): Promise<ReloadOutcome> {
    const outcome = this.#reloads.then(() => this.#applyReload(next, nextManifests));
    this.#reloads = outcome.catch(() => undefined);
    return outcome;
  }

  async #applyReload(next: GatewayConfig, nextManifests: readonly ManifestPolicy[]): Promise<ReloadOutcome> {
    checkConfig(next);
    const plan = reloadPlan(this.#config, next);
    if (plan.restartFields.length > 0) throw restartNeeded(plan.restartFields);
    const upstreams = await upstreamsAfterReload(this.#pool, next.upstreams, plan, this.#parts.connectOptions);
    let nextOffer: Offer;
    try {
      nextOffer = await this.#offer(this.#current.withheld, {
        config: next,
        manifests: nextManifests,
        pool: upstreams.pool,
      });
    } catch (error) {
      await upstreams.discard();
      throw error;
    }
    // Nothing above changed what is served; from here on, in one turn, the new config is in force.
    const retired = plan.removed.concat(plan.changed).flatMap((upstream) => this.#pool.connection(upstream) ?? []);
    this.#stopToolWatch();
    this.#pool = upstreams.pool;
    this.#config = next;
    this.#manifests = nextManifests;
    this.#stopToolWatch = this.#pool.onToolsChanged(this.#onToolsChanged);
    this.#takeUp(nextOffer);
    this.#retiring.add(retireConnections(retired, this.#inFlight, this.#parts.logger));
    return { version: nextOffer.version, plan };
  }

  /** Stops serving: closes the upstreams (child processes included) and the store the gateway opened. */
  async close(): Promise<void> {
    const { operations, store, ownsStore } = this.#parts;
    clearInterval(this.#recheck);
    await this.#reloads;
    this.#stopToolWatch();
    await Promise.all(this.#retiring);
    // Webhooks already under way are delivered before the store they read closes.
    await this.approvals?.desk.drain();
    await operations.close();
    await this.#handler?.close();
    await this.#pool.close();
    if (ownsStore) await store.close();
  }
}
