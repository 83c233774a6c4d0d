/**
 * The gateway's own pipeline stage (`policy`, before every extension's
 * check): who may call a tool (`allow`), whether this call needs a person
 * (`confirm.when`), what it costs (`cost.units` read from the arguments), and
 * whether the tool is withheld because its upstream changed it (pins). Every
 * rule fails closed: an `allow` that cannot be evaluated denies, a `when`
 * that cannot be evaluated asks, a `units` that cannot be evaluated refuses.
 */
import { ExtensionError, type AuthInfo, type CallContext, type ServerExtension, type ToolCall } from '@ext/core';
import { requireApproval } from '@ext/core/kit';
import { estimateCallUnits } from '@ext/cost';
import { toolChangedError } from '../pins/errors.js';
import type { ConditionInput } from './conditions.js';
import type { ResolvedToolPolicy } from './resolve.js';

/** The gateway's identifier for its own stage: it serves no wire protocol of its own. */
export const GATEWAY_POLICY_ID = 'io.github.mcp-ext/gateway-policy';
const GATEWAY_PACKAGE = '@ext/gateway';

/** Why a tool is withheld from every caller: its upstream changed its definition since it was pinned. */
export interface Withheld {
  readonly changes: readonly string[];
}

/** What the stage needs of the gateway's current tools, by exposed name. */
export interface PolicyLookup {
  policy(tool: string): ResolvedToolPolicy | undefined;
  withheld(tool: string): Withheld | undefined;
  /** The version of the policy `policy` reads now (it changes when the config is reloaded). */
  readonly version?: string | undefined;
}

/** The policy that admitted a call, and its version: the rest of the call runs under it, whatever a reload changes meanwhile. */
export interface AdmittedPolicy {
  readonly policy: ResolvedToolPolicy;
  readonly version: string | undefined;
}

const ADMITTED = Symbol('gateway admitted policy');

/** The policy the stage admitted this call under, when it did. */
export function admittedPolicy(ctx: Pick<CallContext, 'locals'>): AdmittedPolicy | undefined {
  return ctx.locals.get(ADMITTED) as AdmittedPolicy | undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The caller as rules see it, from the auth info its transport carried (API key or OAuth token). */
export function callerInput(
  principal: string,
  authInfo: AuthInfo | undefined,
  tool: string,
  args: Readonly<Record<string, unknown>>,
): ConditionInput {
  const extra = authInfo?.extra;
  const claims = extra?.claims;
  return {
    principal,
    scopes: [...(authInfo?.scopes ?? [])],
    roles: strings(extra?.roles),
    claims: typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {},
    tool,
    args,
  };
}

/** Whether `allow` lets this caller use the tool; an expression that cannot be evaluated denies. */
export function allowed(policy: ResolvedToolPolicy, input: ConditionInput): boolean {
  if (policy.allow === undefined) return true;
  try {
    return policy.allow.evaluate(input);
  } catch {
    return false;
  }
}

function denied(tool: string, field: string): ExtensionError {
  return new ExtensionError('auth_required', 'ACCESS_DENIED', `"${tool}" is not available to this caller`, {
    userActionable: false,
    suggestion: 'Ask the gateway operator for access to this tool.',
    details: { tool, rule: field },
  });
}

/** Whether a conditional confirmation applies to this call; one that cannot be evaluated does (fail closed). */
function confirmApplies(policy: ResolvedToolPolicy, input: ConditionInput): boolean {
  const when = policy.confirm?.when;
  if (when === undefined) return false;
  try {
    return when.evaluate(input);
  } catch {
    return true;
  }
}

/** The call's cost from its arguments; one that cannot be computed is refused, naming the rule. */
function unitsOf(policy: ResolvedToolPolicy, input: ConditionInput): number | undefined {
  const units = policy.cost?.unitsFrom;
  if (units === undefined) return undefined;
  try {
    return units.evaluate(input);
  } catch (error) {
    throw new ExtensionError(
      'invalid_input',
      'COST_UNITS_UNREADABLE',
      `The cost of this call cannot be read from its arguments`,
      {
        details: { rule: units.field, reason: error instanceof Error ? error.message : 'unknown' },
      },
    );
  }
}

/**
 * Whether the gateway offers this call to this caller now: the tool is not
 * withheld (its upstream changed it) and `allow` lets the caller use it;
 * throws the refusal. Run on every call, and again when an operator's
 * approval lets a held call go on (the policy may have changed meanwhile).
 */
export function admit(
  lookup: PolicyLookup,
  call: ToolCall,
  ctx: Pick<CallContext, 'principal' | 'authInfo'>,
): { readonly policy: ResolvedToolPolicy; readonly input: ConditionInput } | undefined {
  const withheld = lookup.withheld(call.name);
  if (withheld !== undefined) throw toolChangedError(call.name, withheld.changes);
  const policy = lookup.policy(call.name);
  if (policy === undefined) return undefined;
  const input = callerInput(ctx.principal, ctx.authInfo, call.name, call.arguments);
  if (!allowed(policy, input)) throw denied(call.name, policy.allow?.field ?? 'allow');
  return { policy, input };
}

/** The `policy` stage's half: refuses, gates or prices each call of a gateway tool as its policy says. */
export function gatewayPolicyServer(lookup: PolicyLookup): ServerExtension {
  return {
    side: 'server',
    name: GATEWAY_PACKAGE,
    ids: [GATEWAY_POLICY_ID],
    settings: { version: '1.0' },
    stage: 'policy',
    middleware: (call, ctx, next) => {
      const admitted = admit(lookup, call, ctx);
      if (admitted === undefined) return next();
      const { policy, input } = admitted;
      // Read in the same turn as the policy: the version that admitted the call is the one it runs under (GW-50).
      ctx.locals.set(ADMITTED, { policy, version: lookup.version } satisfies AdmittedPolicy);
      if (policy.confirm !== undefined && confirmApplies(policy, input))
        requireApproval(ctx, {
          requestedBy: GATEWAY_PACKAGE,
          reason: policy.confirm.message ?? `"${call.name}" needs a person's approval for these arguments.`,
          riskLevel: policy.confirm.risk,
        });
      const units = unitsOf(policy, input);
      if (units !== undefined) estimateCallUnits(ctx, units);
      return next();
    },
  };
}
