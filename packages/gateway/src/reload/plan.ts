/**
 * What a reload changes (pure): which fields of the new config a running
 * gateway can take up, which only a restart can, and which upstreams are
 * added, removed, changed or kept. A reload applies all of a config or none
 * of it (GW-49), so a change to a restart-only field refuses the reload.
 */
import { canonicalHash, canonicalJson } from '@ext/core/kit';
import type { GatewayConfig } from '../config/schema.js';
import type { ManifestPolicy } from '../policy/manifest.js';

/**
 * Fields a running gateway cannot change: what it listens on and who it
 * lets in, where its state lives, what it hides from logs, and the
 * approvals desk and metrics it built at start.
 */
export const RESTART_ONLY_FIELDS = ['name', 'store', 'listen', 'identity', 'redact', 'approvals', 'metrics'] as const;

export interface ReloadPlan {
  /** Restart-only fields whose value differs: the reload must not go ahead. */
  readonly restartFields: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Upstreams whose settings differ: reconnected with the new ones. */
  readonly changed: readonly string[];
  /** Upstreams kept as they are: their connections (and sessions) carry over. */
  readonly kept: readonly string[];
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

/** How `next` differs from `previous`, as far as a running gateway is concerned. */
export function reloadPlan(previous: GatewayConfig, next: GatewayConfig): ReloadPlan {
  const restartFields = RESTART_ONLY_FIELDS.filter((field) => !same(previous[field], next[field]));
  const before = previous.upstreams;
  const after = next.upstreams;
  const names = Object.keys(after);
  return {
    restartFields,
    added: names.filter((name) => !(name in before)),
    removed: Object.keys(before).filter((name) => !(name in after)),
    changed: names.filter((name) => name in before && !same(before[name], after[name])),
    kept: names.filter((name) => name in before && same(before[name], after[name])),
  };
}

/**
 * The version of the policy a call runs under: a digest of everything a
 * reload can change (upstreams, policies, manifests, defaults, pins), so two
 * gateways loaded from the same files agree on it, and an audit can tell
 * which rules let a call through.
 */
export function policyVersion(config: GatewayConfig, manifests: readonly ManifestPolicy[]): string {
  const manifestPolicies = manifests.map((manifest) => ({ ...manifest, tools: [...manifest.tools] }));
  const reloadable: Record<string, unknown> = { ...config, manifestPolicies };
  for (const field of RESTART_ONLY_FIELDS) Reflect.deleteProperty(reloadable, field);
  Reflect.deleteProperty(reloadable, '$schema');
  return canonicalHash(reloadable).slice(0, 16);
}
