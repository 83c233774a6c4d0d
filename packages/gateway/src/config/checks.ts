/**
 * What a schema cannot say about a config: a shared anonymous caller stays
 * on loopback, intent rules need something to
 * match and a regular expression that compiles, compensation arguments need
 * expressions that parse, redaction patterns need an id of their own and a
 * regular expression that compiles and never matches the empty string. Pure.
 */
import { ConfigurationError } from '@ext/core';
import { oauthResource } from '@ext/core/oauth';
import { DEFAULT_APPROVALS_PATH } from '../approvals.js';
import { HEALTH_PATH, READY_PATH } from '../metrics/serve.js';
import { isLoopbackAddress } from '@ext/core/sdk-v2/server';
import { oauthOptions } from '../identity.js';
import { compileNumber, compilePredicate, ConditionError } from '../policy/conditions.js';
import { intentPattern } from '../policy/resolve.js';
import { firstBadExpression } from '../policy/template.js';
import { BUILTIN_DETECTORS } from '../redact/detectors.js';
import { createRedactor } from '../redact/redactor.js';
import type { ConfigFault } from './errors.js';
import { DEFAULT_METRICS_PATH } from './metrics-schema.js';
import type { GatewayConfig, ToolPolicy } from './schema.js';

function intentFault(key: string, rules: NonNullable<ToolPolicy['intent']>): ConfigFault | undefined {
  for (const [index, rule] of rules.entries()) {
    const path = ['policy', key, 'intent', index];
    if (rule.keywords === undefined && rule.pattern === undefined) {
      return { path, problem: 'needs `keywords` or a `pattern` to match the intent with' };
    }
    if (rule.pattern === undefined) continue;
    try {
      intentPattern(rule.pattern);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return { path: [...path, 'pattern'], problem: `is not a valid regular expression: ${error.message}` };
    }
  }
  return undefined;
}

function compensationFault(key: string, policy: ToolPolicy): ConfigFault | undefined {
  if (policy.compensate === undefined) return undefined;
  const bad = firstBadExpression(policy.compensate.arguments);
  if (bad === undefined) return undefined;
  return {
    path: ['policy', key, 'compensate', 'arguments', ...bad.path],
    problem: `is not a valid expression: ${bad.error.message}`,
  };
}

/** One shared anonymous caller is for this machine only: other machines must each be identified. */
function exposureFault(config: GatewayConfig): ConfigFault | undefined {
  const host = config.listen?.host;
  if (host === undefined || isLoopbackAddress(host) || config.identity?.anonymous !== true) return undefined;
  return {
    path: ['identity', 'anonymous'],
    problem: `serves every caller as one shared principal, and listen.host ${host} lets other machines connect; identify callers (identity.apiKeys or identity.oauth) or listen on 127.0.0.1`,
  };
}

/** What the resource server refuses that the schema lets through (an `http` issuer off loopback). */
function oauthFault(config: GatewayConfig): ConfigFault | undefined {
  const oauth = config.identity?.oauth;
  if (oauth === undefined) return undefined;
  // The secret's variable is read when the gateway serves HTTP; any value stands for it here.
  const env = { [oauth.introspection?.clientSecretEnv ?? '']: 'checked-at-start' };
  try {
    oauthResource(oauthOptions(oauth, env));
    return undefined;
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    const said = /^oauthResource: (\S+) (must .*)$/.exec(error.message);
    const field = said?.[1]?.split('.') ?? [];
    return { path: ['identity', 'oauth', ...field], problem: said?.[2] ?? error.message };
  }
}

const BUILTIN_IDS: ReadonlySet<string> = new Set(BUILTIN_DETECTORS.map((detector) => detector.id));

/** An operator's redaction pattern the redactor would refuse: an id taken, a bad regex, one matching nothing. */
function redactFault(config: GatewayConfig): ConfigFault | undefined {
  const seen = new Set<string>();
  for (const [index, entry] of (config.redact?.patterns ?? []).entries()) {
    const path = ['redact', 'patterns', index];
    if (BUILTIN_IDS.has(entry.id) || seen.has(entry.id)) {
      const owner = BUILTIN_IDS.has(entry.id) ? 'a built-in detector' : 'an earlier pattern';
      return { path: [...path, 'id'], problem: `"${entry.id}" is already the id of ${owner}; ids must be unique` };
    }
    seen.add(entry.id);
    try {
      createRedactor({ builtins: false, patterns: [entry] });
    } catch (error) {
      if (!ConfigurationError.isInstance(error)) throw error;
      // The redactor names the field and the id; the config error names the field by its own path.
      const said = /^createRedactor: patterns\[0\]\.(id|pattern) (?:\(id "[^"]*"\) )?(.*)$/su.exec(error.message);
      return { path: [...path, said?.[1] ?? 'pattern'], problem: said?.[2] ?? error.message };
    }
  }
  return undefined;
}

/** A CEL expression that does not compile, named by its path and the place of the fault. */
function conditionFault(
  path: ConfigFault['path'],
  source: string | undefined,
  kind: 'predicate' | 'number',
): ConfigFault | undefined {
  if (source === undefined) return undefined;
  try {
    if (kind === 'predicate') compilePredicate(source, path.join('.'));
    else compileNumber(source, path.join('.'));
    return undefined;
  } catch (error) {
    if (!ConditionError.isInstance(error)) throw error;
    const place =
      error.line > 1 ? `line ${String(error.line)}, column ${String(error.column)}` : `column ${String(error.column)}`;
    return { path, problem: `is not a valid condition (${place}): ${error.reason}` };
  }
}

/** The conditions of one policy entry (`allow`, `confirm.when`, `cost.units`), checked as they will be compiled. */
function conditionsFault(key: string, policy: ToolPolicy): ConfigFault | undefined {
  const at = (...rest: string[]): ConfigFault['path'] => ['policy', key, ...rest];
  const when = typeof policy.confirm === 'object' ? policy.confirm.when : undefined;
  const units = typeof policy.cost?.units === 'string' ? policy.cost.units : undefined;
  return (
    conditionFault(at('allow'), policy.allow, 'predicate') ??
    conditionFault(at('confirm', 'when'), when, 'predicate') ??
    conditionFault(at('cost', 'units'), units, 'number')
  );
}

/** An operator approver needs somewhere to hold the call (`approvals`). */
function approverFault(config: GatewayConfig, key: string, policy: ToolPolicy): ConfigFault | undefined {
  const approver = typeof policy.confirm === 'object' ? policy.confirm.approver : undefined;
  if (approver === undefined || approver === 'user' || config.approvals !== undefined) return undefined;
  return {
    path: ['policy', key, 'confirm', 'approver'],
    problem: `is "${approver}", which needs the \`approvals\` section (where operators decide held calls)`,
  };
}

/** Webhooks carry signed decision links: the secret that signs them must be named. */
function approvalsFault(config: GatewayConfig): ConfigFault | undefined {
  const approvals = config.approvals;
  if (approvals?.webhooks === undefined || approvals.webhooks.length === 0) return undefined;
  if (approvals.linkSecretEnv !== undefined) return undefined;
  return {
    path: ['approvals', 'linkSecretEnv'],
    problem: 'is required with `approvals.webhooks`: it names the secret that signs their approve and deny links',
  };
}

/** `listen.port` when the config leaves it out (its schema default). */
const DEFAULT_LISTEN_PORT = 8080;

/** The paths served beside the MCP endpoint, by what serves them. */
function pathsBeside(config: GatewayConfig): readonly (readonly [string, string])[] {
  return [
    [config.listen?.path ?? '/mcp', 'the MCP endpoint'],
    ...(config.approvals === undefined
      ? []
      : [[config.approvals.path ?? DEFAULT_APPROVALS_PATH, 'the approvals page'] as const]),
    [HEALTH_PATH, 'the liveness probe'],
    [READY_PATH, 'the readiness probe'],
  ];
}

/**
 * Metrics beside the MCP endpoint need a path of their own and an operator to
 * read them (an API key or a token with the scope); apart, a port of their own.
 */
function metricsFault(config: GatewayConfig): ConfigFault | undefined {
  const metrics = config.metrics;
  if (metrics?.listen !== undefined) {
    const port = metrics.listen.port;
    if (port === 0 || port !== (config.listen?.port ?? DEFAULT_LISTEN_PORT)) return undefined;
    return { path: ['metrics', 'listen', 'port'], problem: `is ${String(port)}, the MCP endpoint's port` };
  }
  if (metrics === undefined) return undefined;
  const path = metrics.path ?? DEFAULT_METRICS_PATH;
  const owner = pathsBeside(config).find(([taken]) => taken === path)?.[1];
  if (owner !== undefined) return { path: ['metrics', 'path'], problem: `is ${path}, where ${owner} is served` };
  const identity = config.identity;
  if (Object.keys(identity?.apiKeys ?? {}).length > 0 || identity?.oauth !== undefined) return undefined;
  return {
    path: ['metrics'],
    problem:
      'is served beside the MCP endpoint, where only an operator (an API key or access token with `metrics.scope`) may read it: configure identity.apiKeys or identity.oauth, or serve it apart with metrics.listen',
  };
}

/** The first fault of a config that already conforms to the schema, or `undefined`. */
export function semanticFault(config: GatewayConfig): ConfigFault | undefined {
  const exposed = exposureFault(config) ?? oauthFault(config) ?? approvalsFault(config) ?? metricsFault(config);
  if (exposed !== undefined) return exposed;
  for (const [key, policy] of Object.entries(config.policy ?? {})) {
    const fault =
      intentFault(key, policy.intent ?? []) ??
      compensationFault(key, policy) ??
      conditionsFault(key, policy) ??
      approverFault(config, key, policy);
    if (fault !== undefined) return fault;
  }
  return redactFault(config);
}
