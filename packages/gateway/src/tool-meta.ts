/**
 * A resolved tool policy as the extensions read it: each extension's
 * declaration in the proxied tool's `_meta[<id>]`, in that extension's wire
 * spelling, so the gateway configures them exactly as an author would.
 */
import { CONFIRMATION_ID } from '@ext/confirmation';
import { COST_ID } from '@ext/cost';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { PERMISSIONS_ID } from '@ext/permissions';
import type { ResolvedCost, ResolvedToolPolicy } from './policy/resolve.js';

function confirmationMeta(policy: ResolvedToolPolicy): Record<string, unknown> {
  const confirm = policy.confirm;
  if (confirm === undefined) return { requires_confirmation: false, risk_level: 'safe' };
  // Asked per call by the gateway's policy stage (`confirm.when`), so not every call declares it (GW-27).
  if (confirm.when !== undefined) return { requires_confirmation: false, risk_level: 'reversible' };
  return {
    requires_confirmation: true,
    risk_level: confirm.risk,
    ...(confirm.message === undefined ? {} : { confirmation_message: confirm.message }),
  };
}

function rateLimits(limits: NonNullable<ResolvedCost['rateLimit']>): Record<string, number> {
  return {
    ...(limits.perMinute === undefined ? {} : { requests_per_minute: limits.perMinute }),
    ...(limits.perHour === undefined ? {} : { requests_per_hour: limits.perHour }),
    ...(limits.perDay === undefined ? {} : { requests_per_day: limits.perDay }),
  };
}

function quotaMeta(quota: NonNullable<ResolvedCost['quota']>): Record<string, unknown> {
  // Without `window` the cost extension's default applies: the window slides.
  return {
    limit: quota.limit,
    window_seconds: quota.windowSeconds,
    ...(quota.window === undefined ? {} : { window: quota.window }),
  };
}

function costMeta(cost: ResolvedCost): Record<string, unknown> {
  return {
    cost: {
      category: cost.category,
      estimated_units: cost.units,
      ...(cost.unit === undefined ? {} : { unit_label: cost.unit }),
    },
    ...(cost.latency === undefined ? {} : { latency: cost.latency }),
    ...(cost.quota === undefined ? {} : { quota: quotaMeta(cost.quota) }),
    ...(cost.rateLimit === undefined ? {} : { rate_limits: rateLimits(cost.rateLimit) }),
  };
}

/** `Tool._meta` for a proxied tool: the upstream's own entries are not passed on, ours are built from policy. */
export function policyToolMeta(policy: ResolvedToolPolicy): Record<string, unknown> {
  return {
    [CONFIRMATION_ID]: confirmationMeta(policy),
    ...(policy.cost === undefined ? {} : { [COST_ID]: costMeta(policy.cost) }),
    [IDEMPOTENCY_ID]: { idempotent_capable: policy.idempotent },
    // Named on the tool itself, so a server composed before the tool existed checks them too (GW-19).
    ...(policy.scopes.length === 0 ? {} : { [PERMISSIONS_ID]: { required_scopes: [...policy.scopes] } }),
  };
}

/**
 * The proxied tool's annotations: the upstream's, with `destructiveHint`
 * following the resolved confirmation (true exactly when its risk is
 * `destructive`), so the tool says what the gateway enforces and the
 * confirmation extension finds no contradiction (GW-7).
 */
export function policyAnnotations(
  annotations: Readonly<Record<string, unknown>> | undefined,
  policy: ResolvedToolPolicy,
): Record<string, unknown> {
  const declared = policy.confirm?.when === undefined ? policy.confirm?.risk : 'reversible';
  return { ...annotations, destructiveHint: declared === 'destructive' };
}
