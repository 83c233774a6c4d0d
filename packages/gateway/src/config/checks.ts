/**
 * What a schema cannot say about a config: a shared anonymous caller stays
 * on loopback, intent rules need something to
 * match and a regular expression that compiles, compensation arguments need
 * expressions that parse. Pure.
 */
import { isLoopbackAddress } from '@ext/core/sdk-v2/server';
import { intentPattern } from '../policy/resolve.js';
import { firstBadExpression } from '../policy/template.js';
import type { ConfigFault } from './errors.js';
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

/** The first fault of a config that already conforms to the schema, or `undefined`. */
export function semanticFault(config: GatewayConfig): ConfigFault | undefined {
  const exposed = exposureFault(config);
  if (exposed !== undefined) return exposed;
  for (const [key, policy] of Object.entries(config.policy ?? {})) {
    const fault = intentFault(key, policy.intent ?? []) ?? compensationFault(key, policy);
    if (fault !== undefined) return fault;
  }
  return undefined;
}
