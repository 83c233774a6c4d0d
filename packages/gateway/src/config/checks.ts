/**
 * What a schema cannot say about a config: intent rules need something to
 * match and a regular expression that compiles, compensation arguments need
 * expressions that parse. Pure.
 */
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

/** The first fault of a config that already conforms to the schema, or `undefined`. */
export function semanticFault(config: GatewayConfig): ConfigFault | undefined {
  for (const [key, policy] of Object.entries(config.policy ?? {})) {
    const fault = intentFault(key, policy.intent ?? []) ?? compensationFault(key, policy);
    if (fault !== undefined) return fault;
  }
  return undefined;
}
