/**
 * What the gateway offers: its tools with their policies, the ones
 * withheld, and the composition built for them, under one version of the
 * policy. Built from the config, manifests and upstream pool given, so a
 * reload can build the next offer before it takes effect.
 */
import type { ComposedServer, Logger, ServerExtension } from '@ext/core';
import type { GatewayApprovals } from './approvals.js';
import { composeGateway } from './compose.js';
import type { GatewayConfig } from './config/schema.js';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import type { GatewayOperations } from './metrics/operations.js';
import { offeredTools } from './offered-tools.js';
import { withheldTools, type PinReview } from './pins/withheld.js';
import type { ManifestPolicy } from './policy/manifest.js';
import type { PolicyLookup, Withheld } from './policy/stage.js';
import type { Redactor } from './redact/redactor.js';
import { policyVersion } from './reload/plan.js';
import type { UpstreamPool } from './upstream/index.js';

/** What the gateway offers right now: its tools with their policies, the ones withheld, and the composition built for them. */
export interface Offer {
  readonly tools: readonly GatewayTool[];
  readonly byName: ReadonlyMap<string, GatewayTool>;
  /** Tools whose upstream changed them since they were pinned: registered, never listed, every call refused (GW-28). */
  readonly withheld: ReadonlyMap<string, Withheld>;
  readonly composed: ComposedServer;
  /** The version of the policy it was resolved under (GW-50). */
  readonly version: string;
}

/** What an offer is built from: what a reload may replace. */
export interface OfferSources {
  readonly config: GatewayConfig;
  readonly manifests: readonly ManifestPolicy[];
  readonly pool: UpstreamPool;
}

/** What every offer is built with, whatever its sources. */
export interface OfferParts {
  readonly callUpstream: CallUpstream;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly pins: PinReview;
  /** Reads the offer in force, whichever composition a server was built with. */
  readonly lookup: PolicyLookup;
  readonly approvals: GatewayApprovals | undefined;
  readonly operations: GatewayOperations;
  readonly extensions: readonly ServerExtension[] | undefined;
  /** The descriptions of the scopes the manifests in force declare, by name. */
  readonly scopeDescriptions: () => Record<string, string>;
  /** A tool of the offer in force, by name (the metrics name its upstream). */
  readonly toolOf: (tool: string) => GatewayTool | undefined;
}

/** Whether a rebuilt offer names the same tools and withholds the same ones (a pin recheck that found no acceptance). */
export function sameTools(before: Offer, after: Offer): boolean {
  const names = (offer: Offer) => [...offer.byName.keys(), '|', ...offer.withheld.keys()].join('\n');
  return names(before) === names(after);
}

/** The policies and withheld tools of the offer `current` returns, read anew on every use. */
export function offerLookup(current: () => Offer): PolicyLookup {
  return {
    policy: (tool) => current().byName.get(tool)?.policy,
    // Withheld under the upstream's exposed name, which `as` may have changed (GW-51).
    withheld: (tool) => current().withheld.get(current().byName.get(tool)?.policy.exposedName ?? tool),
    get version() {
      return current().version;
    },
  };
}

/** The offer of `from`'s upstreams under its config and manifests; `before` says what was withheld until now. */
export async function buildOffer(
  parts: OfferParts,
  before: ReadonlyMap<string, Withheld>,
  from: OfferSources,
): Promise<Offer> {
  const exposed = await from.pool.tools();
  const withheld = await withheldTools(exposed, parts.pins, before);
  const tools = offeredTools(from.config, from.manifests, exposed);
  const version = policyVersion(from.config, from.manifests);
  const { approvals } = parts;
  const composed = parts.operations.observeCalls(
    composeGateway({
      config: from.config,
      tools,
      callUpstream: parts.callUpstream,
      scopeDescriptions: parts.scopeDescriptions(),
      logger: parts.logger,
      redactor: parts.redactor,
      policy: parts.lookup,
      approvals: approvals && { ...approvals.confirmation, policyVersion: version },
      extensions: parts.extensions,
    }),
    parts.toolOf,
  );
  return { tools, byName: new Map(tools.map((tool) => [tool.name, tool])), withheld, composed, version };
}
