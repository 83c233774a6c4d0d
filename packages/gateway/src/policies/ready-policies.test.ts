// The ready policies as data (valid entries, conditions that compile) and as the config applies them.
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import { TOOL_NAME_PATTERN } from '../config/patterns.js';
import { ToolPolicySchema } from '../config/policy-schema.js';
import { readSeedManifest } from '../config/test-configs.js';
import type { ConditionInput } from '../policy/conditions.js';
import { manifestPolicy } from '../policy/manifest.js';
import { resolveToolPolicy, type UpstreamToolInfo } from '../policy/resolve.js';
import { firstBadExpression } from '../policy/template.js';
import { READY_POLICIES, READY_POLICY_NAMES } from './index.js';

const config = (yaml: string) => parseConfig(`upstreams:\n  fs: { command: npx }\n${yaml}`);

function resolve(yaml: string, tool: UpstreamToolInfo) {
  return resolveToolPolicy({ config: config(yaml), tool });
}

/** A call of `args` by a caller without scopes, as a condition reads it. */
const call = (args: Record<string, unknown>): ConditionInput => ({
  principal: 'id:ada',
  scopes: [],
  roles: [],
  claims: {},
  tool: 'query',
  args,
});

describe('each ready policy, as data', () => {
  const isToolPolicy = Compile(ToolPolicySchema);
  const toolName = new RegExp(TOOL_NAME_PATTERN, 'u');

  it.each(READY_POLICY_NAMES)('%s: entries valid as config entries, keyed by exact tool names', (name) => {
    const entries = Object.entries(READY_POLICIES[name]);
    expect(entries.length).toBeGreaterThan(0);
    for (const [tool, policy] of entries) {
      expect(toolName.test(tool), tool).toBe(true);
      expect(isToolPolicy.Check(policy), tool).toBe(true);
      expect(firstBadExpression(policy.compensate?.arguments ?? {}), tool).toBeUndefined();
    }
  });

  it.each(READY_POLICY_NAMES)('%s: every condition compiles when chosen (a config naming it loads)', (name) => {
    for (const tool of Object.keys(READY_POLICIES[name])) {
      // Resolving compiles `confirm.when`, `allow` and `cost.units`; a bad one throws naming the field.
      expect(() => resolve(`policies: [${name}]`, { name: tool })).not.toThrow();
    }
  });
});

describe('ready policies in a config', () => {
  it('apply to an upstream tool by its own name, whatever name the gateway offers it under', () => {
    const policy = resolve('policies: [git]', { name: 'git_commit', exposedName: 'repo__git_commit' });
    expect(policy).toMatchObject({
      exposedName: 'repo__git_commit',
      confirm: { risk: 'reversible', message: 'Commit to {repo_path}: {message}' },
      idempotent: true,
      sources: ['policies git["git_commit"]'],
    });
  });

  it('apply only when chosen', () => {
    expect(resolve('', { name: 'git_commit' })).toMatchObject({ confirm: undefined, sources: [] });
    expect(resolve('policies: [time]', { name: 'git_commit' })).toMatchObject({ confirm: undefined, sources: [] });
  });

  it("give way to the operator's policy entries, field by field", () => {
    const yaml = [
      'policies: [git]',
      'policy:',
      '  "repo__*": { scopes: [repo:write] }',
      '  git_commit: { confirm: { message: "Commit {message}?" } }',
      '  git_reset: { confirm: false }',
    ].join('\n');
    const commit = resolve(yaml, { name: 'git_commit', exposedName: 'repo__git_commit' });
    expect(commit).toMatchObject({
      confirm: { risk: 'reversible', message: 'Commit {message}?' },
      idempotent: true,
      scopes: ['repo:write'],
      sources: ['policies git["git_commit"]', 'policy["repo__*"]', 'policy["git_commit"]'],
    });
    const reset = resolve(yaml, { name: 'git_reset', annotations: { destructiveHint: true } });
    expect(reset?.confirm).toBeUndefined();
  });

  it('come before the manifests, which win field by field', () => {
    const github = manifestPolicy(readSeedManifest('github-server-manifest.json'));
    const policy = resolveToolPolicy({
      config: config('policies: [github]'),
      manifests: [github],
      tool: { name: 'search_issues' },
    });
    expect(policy?.sources).toEqual(['policies github["search_issues"]', `manifest ${github.server}`]);
    // The ready policy's rate limit stays; the manifest's category and scopes are added.
    expect(policy?.cost).toMatchObject({ category: 'free', rateLimit: { perMinute: 30 } });
    expect(policy?.scopes).toEqual(['read:issues']);
  });

  it('hide what they hide until the operator offers it again', () => {
    expect(resolve('policies: [everything]', { name: 'get-env' })).toBeUndefined();
    expect(
      resolve('policies: [everything]\npolicy: { get-env: { hidden: false } }', { name: 'get-env' }),
    ).toBeDefined();
  });

  it('match no tool through a name inherited by every object', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(resolve(`policies: [${READY_POLICY_NAMES.join(', ')}]`, { name })?.sources).toEqual([]);
    }
  });

  it('postgres asks a person only for SQL with a second statement', () => {
    const when = resolve('policies: [postgres]', { name: 'query' })?.confirm?.when;
    expect(when?.evaluate(call({ sql: 'SELECT * FROM orders WHERE id = 1;' }))).toBe(false);
    expect(when?.evaluate(call({ sql: 'SELECT 1; COMMIT; DROP TABLE orders' }))).toBe(true);
    expect(when?.evaluate(call({ sql: 'select 1 ;\n  delete from orders' }))).toBe(true);
  });

  it('filesystem does not ask about an edit_file dry run', () => {
    const when = resolve('policies: [filesystem]', { name: 'edit_file' })?.confirm?.when;
    expect(when?.evaluate(call({ path: 'a', edits: [], dryRun: true }))).toBe(false);
    expect(when?.evaluate(call({ path: 'a', edits: [], dryRun: false }))).toBe(true);
    expect(when?.evaluate(call({ path: 'a', edits: [] }))).toBe(true);
  });
});
