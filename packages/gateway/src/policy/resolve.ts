/**
 * The policy one upstream tool gets: the entries for its name of the ready
 * policies the config chooses (`policies`, in their order), then the
 * manifests' entries for its name, then every config policy entry whose key
 * matches it, in file order, later ones winning field by field, then the
 * safe defaults where all are silent (upstream annotations decide
 * confirmation and idempotency). Pure.
 */
import type {
  Compensation,
  ConfirmPolicy,
  CostPolicy,
  GatewayConfig,
  RiskLevel,
  ToolPolicy,
} from '../config/schema.js';
import { fieldName } from '../config/errors.js';
import { compileNumber, compilePredicate, type CompiledCondition } from './conditions.js';
import { globMatchesAny } from './glob.js';
import type { ManifestPolicy } from './manifest.js';
import { READY_POLICIES } from '../policies/index.js';

/** The MCP tool annotations the defaults read (hints, as the upstream reports them). */
export interface ToolHints {
  readonly destructiveHint?: boolean | undefined;
  readonly readOnlyHint?: boolean | undefined;
}

/** An upstream tool: its own name, the name the gateway offers it under, and its annotations. */
export interface UpstreamToolInfo {
  readonly name: string;
  /** `<upstream>__<tool>` with several upstreams; the tool's own name (the default) with one. */
  readonly exposedName?: string | undefined;
  readonly annotations?: ToolHints | undefined;
}

export interface ResolveToolPolicyInput {
  /** A config as `parseConfig` returns it. */
  readonly config: GatewayConfig;
  readonly manifests?: readonly ManifestPolicy[] | undefined;
  readonly tool: UpstreamToolInfo;
}

export interface ResolvedConfirm {
  readonly risk: RiskLevel;
  /** `undefined`: the confirmation extension's own wording. */
  readonly message: string | undefined;
  /** Asked only for calls where this holds (`confirm.when`); `undefined`: every call. */
  readonly when?: CompiledCondition<boolean> | undefined;
  /** Who approves (`confirm.approver`); `undefined`: the user. */
  readonly approver?: 'user' | 'operator' | 'either' | undefined;
}

export interface ResolvedCost {
  /** The declared estimate (1 when `unitsFrom` reads the units from each call). */
  readonly units: number;
  /** `cost.units` as an expression over the call (`args.amount`). */
  readonly unitsFrom?: CompiledCondition<number> | undefined;
  readonly unit: string | undefined;
  readonly category: 'free' | 'metered' | 'requires_approval';
  readonly latency: 'instant' | 'seconds' | 'minutes' | undefined;
  readonly quota:
    | { readonly limit: number; readonly windowSeconds: number; readonly window?: 'sliding' | 'fixed' | undefined }
    | undefined;
  readonly rateLimit:
    | {
        readonly perMinute?: number | undefined;
        readonly perHour?: number | undefined;
        readonly perDay?: number | undefined;
      }
    | undefined;
}

export interface ResolvedIntentRule {
  readonly keywords: readonly string[];
  readonly pattern: RegExp | undefined;
  readonly reason: string | undefined;
  readonly from: readonly string[] | undefined;
}

/** Everything the gateway applies to one tool, defaults filled in; `undefined` fields mean "not applied". */
export interface ResolvedToolPolicy {
  readonly name: string;
  readonly exposedName: string;
  readonly confirm: ResolvedConfirm | undefined;
  readonly scopes: readonly string[];
  readonly cost: ResolvedCost | undefined;
  readonly idempotent: boolean;
  /** Whether its calls are safe to repeat (`retry`): `undefined` leaves it to read-only hints and idempotency keys. */
  readonly retry?: ToolPolicy['retry'];
  readonly intent: readonly ResolvedIntentRule[];
  readonly provenance: { readonly source: string } | undefined;
  readonly multimodal: { readonly maxInputBytes?: number; readonly mimeTypes?: readonly string[] } | undefined;
  readonly compensate: Compensation | undefined;
  /** Who may use the tool (`allow`); `undefined`: every caller. */
  readonly allow?: CompiledCondition<boolean> | undefined;
  /** Which entries applied, in order: `policies <name>["<tool>"]`, `manifest <server>`, `policy["<key>"]`. */
  readonly sources: readonly string[];
  /** How the tool is offered (`as`, `description`, `annotations`); `undefined` fields: as the upstream has it. */
  readonly shape?: ToolShape | undefined;
}

/** What an operator changes of how a tool is offered (GW-51). */
export interface ToolShape {
  /** The name clients call it by, and the config field that gave it (`policy.read_file.as`). */
  readonly as?: { readonly name: string; readonly path: readonly string[] } | undefined;
  readonly description?: string | undefined;
  readonly annotations?: ToolPolicy['annotations'];
}

/** An intent rule's `pattern` as the gateway matches it: ignoring case, Unicode. Throws `SyntaxError` when invalid. */
export function intentPattern(source: string): RegExp {
  return new RegExp(source, 'iu');
}

function mergeConfirm(earlier: ConfirmPolicy | undefined, later: ConfirmPolicy): ConfirmPolicy {
  if (later === false) return false;
  const base = typeof earlier === 'object' ? earlier : {};
  return later === true ? { ...base } : { ...base, ...later };
}

function mergeCost(earlier: CostPolicy | undefined, later: CostPolicy): CostPolicy {
  const merged: CostPolicy = { ...earlier, ...later };
  if (earlier?.rateLimit !== undefined && later.rateLimit !== undefined) {
    merged.rateLimit = { ...earlier.rateLimit, ...later.rateLimit };
  }
  return merged;
}

/** `later` over `earlier`, field by field; `confirm`, `cost`, `multimodal` merge their own fields too. */
export function mergeToolPolicies(earlier: ToolPolicy, later: ToolPolicy): ToolPolicy {
  const merged: ToolPolicy = { ...earlier, ...later };
  if (later.confirm !== undefined) merged.confirm = mergeConfirm(earlier.confirm, later.confirm);
  if (later.cost !== undefined) merged.cost = mergeCost(earlier.cost, later.cost);
  if (later.multimodal !== undefined) merged.multimodal = { ...earlier.multimodal, ...later.multimodal };
  if (later.annotations !== undefined) merged.annotations = { ...earlier.annotations, ...later.annotations };
  return merged;
}

interface Entry {
  readonly source: string;
  /** Where the entry is in the config (manifests have none). */
  readonly path?: readonly string[] | undefined;
  readonly policy: ToolPolicy;
}

function matchingEntries(input: ResolveToolPolicyInput, exposedName: string): Entry[] {
  const { name } = input.tool;
  // Keyed by the upstream's own names: whatever the operator calls the upstream, its tools are found.
  const fromReady = (input.config.policies ?? []).flatMap((ready): Entry[] => {
    const map = READY_POLICIES[ready];
    // An upstream names its tools as it likes (`constructor`, `__proto__`): only the map's own keys count.
    const policy = Object.hasOwn(map, name) ? map[name] : undefined;
    if (policy === undefined) return [];
    return [{ source: `policies ${ready}[${JSON.stringify(name)}]`, path: ['policies', ready, name], policy }];
  });
  const fromManifests = (input.manifests ?? []).flatMap((manifest): Entry[] => {
    const policy = manifest.tools.get(name);
    return policy === undefined ? [] : [{ source: `manifest ${manifest.server}`, policy }];
  });
  const fromConfig = Object.entries(input.config.policy ?? {})
    .filter(([key]) => globMatchesAny(key, [exposedName, name]))
    .map(([key, policy]): Entry => ({ source: `policy[${JSON.stringify(key)}]`, path: ['policy', key], policy }));
  return [...fromReady, ...fromManifests, ...fromConfig];
}

// Compiled once per expression and field: offers are rebuilt whenever an upstream's tools change.
const compiled = new Map<string, CompiledCondition<boolean> | CompiledCondition<number>>();

function cachedCompile<T extends boolean | number>(source: string, field: string, kind: 'predicate' | 'number') {
  const key = `${kind}\u0000${field}\u0000${source}`;
  let condition = compiled.get(key);
  if (condition === undefined) {
    condition = kind === 'predicate' ? compilePredicate(source, field) : compileNumber(source, field);
    compiled.set(key, condition);
  }
  return condition as CompiledCondition<T>;
}

/** The config path of the last entry that set a field (its value won the merge). */
function pathOf(entries: readonly Entry[], pick: (policy: ToolPolicy) => unknown, suffix: string): string[] {
  const last = [...entries].reverse().find((entry) => pick(entry.policy) !== undefined);
  return [...(last?.path ?? ['policy']), ...suffix.split('.')];
}

/** That path as config errors name it: `policy.write_file.allow`. */
function fieldOf(entries: readonly Entry[], pick: (policy: ToolPolicy) => unknown, suffix: string): string {
  return fieldName(pathOf(entries, pick, suffix));
}

function resolveConfirm(
  confirm: ConfirmPolicy | undefined,
  hints: ToolHints,
  config: GatewayConfig,
  entries: readonly Entry[] = [],
): ResolvedConfirm | undefined {
  if (confirm === undefined) {
    const confirmsDestructive = config.defaults?.confirmDestructive ?? true;
    const destructive = hints.destructiveHint === true && hints.readOnlyHint !== true;
    return destructive && confirmsDestructive ? { risk: 'destructive', message: undefined } : undefined;
  }
  if (confirm === false) return undefined;
  const details = confirm === true ? {} : confirm;
  const when =
    details.when === undefined
      ? undefined
      : cachedCompile<boolean>(
          details.when,
          fieldOf(
            entries,
            (policy) => (typeof policy.confirm === 'object' ? policy.confirm.when : undefined),
            'confirm.when',
          ),
          'predicate',
        );
  return { risk: details.risk ?? 'destructive', message: details.message, when, approver: details.approver };
}

function resolveCost(cost: CostPolicy | undefined, entries: readonly Entry[]): ResolvedCost | undefined {
  if (cost === undefined) return undefined;
  const units = cost.units ?? 1;
  const unitsFrom =
    typeof units === 'string'
      ? cachedCompile<number>(
          units,
          fieldOf(entries, (policy) => policy.cost?.units, 'cost.units'),
          'number',
        )
      : undefined;
  return {
    units: typeof units === 'number' ? units : 1,
    unitsFrom,
    unit: cost.unit,
    category: cost.category ?? 'metered',
    latency: cost.latency,
    quota: cost.quota,
    rateLimit: cost.rateLimit,
  };
}

function resolveIntent(rules: ToolPolicy['intent']): ResolvedIntentRule[] {
  return (rules ?? []).map((rule) => ({
    keywords: rule.keywords ?? [],
    pattern: rule.pattern === undefined ? undefined : intentPattern(rule.pattern),
    reason: rule.reason,
    from: rule.from,
  }));
}

/**
 * The resolved policy of `input.tool`, or `undefined` when the policy hides
 * it. Matching uses the exposed name and the tool's own name; manifests
 * match the tool's own name.
 */
export function resolveToolPolicy(input: ResolveToolPolicyInput): ResolvedToolPolicy | undefined {
  const { tool, config } = input;
  const exposedName = tool.exposedName ?? tool.name;
  const entries = matchingEntries(input, exposedName);
  const policy = entries.reduce<ToolPolicy>((merged, entry) => mergeToolPolicies(merged, entry.policy), {});
  if (policy.hidden === true) return undefined;
  // What the operator asserts of the tool outweighs what its upstream says (GW-51).
  const hints = { ...tool.annotations, ...policy.annotations };
  return {
    name: tool.name,
    exposedName,
    confirm: resolveConfirm(policy.confirm, hints, config, entries),
    scopes: policy.scopes ?? [],
    cost: resolveCost(policy.cost, entries),
    idempotent: policy.idempotent ?? hints.readOnlyHint !== true,
    retry: policy.retry,
    intent: resolveIntent(policy.intent),
    provenance: policy.provenance,
    multimodal: policy.multimodal,
    compensate: policy.compensate,
    allow:
      policy.allow === undefined
        ? undefined
        : cachedCompile<boolean>(
            policy.allow,
            fieldOf(entries, (entry) => entry.allow, 'allow'),
            'predicate',
          ),
    sources: entries.map((entry) => entry.source),
    shape: shapeOf(policy, entries),
  };
}

function shapeOf(policy: ToolPolicy, entries: readonly Entry[]): ToolShape | undefined {
  const { as, description, annotations } = policy;
  if (as === undefined && description === undefined && annotations === undefined) return undefined;
  return {
    as: as === undefined ? undefined : { name: as, path: pathOf(entries, (entry) => entry.as, 'as') },
    description,
    annotations,
  };
}
