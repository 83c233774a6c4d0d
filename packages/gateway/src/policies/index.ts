/**
 * The ready policies: a policy map for each popular MCP server, written from
 * the server's own tool list, chosen in the config by name
 * (`policies: [filesystem, git]`). Each is keyed by the upstream's own tool
 * names and applies to the tools of those names on any upstream, before the
 * manifests and the config's own `policy` entries, which win field by field.
 */
import { EVERYTHING_POLICY } from './everything.js';
import { FETCH_POLICY } from './fetch.js';
import { FILESYSTEM_POLICY } from './filesystem.js';
import { GIT_POLICY } from './git.js';
import { GITHUB_POLICY } from './github.js';
import { MEMORY_POLICY } from './memory.js';
import type { PolicyMap } from './policy-map.js';
import { POSTGRES_POLICY } from './postgres.js';
import { SLACK_POLICY } from './slack.js';
import { TIME_POLICY } from './time.js';

export type { PolicyMap } from './policy-map.js';

/** The names `policies` accepts, in the order the reference lists them. */
export const READY_POLICY_NAMES = [
  'filesystem',
  'memory',
  'everything',
  'git',
  'fetch',
  'time',
  'github',
  'postgres',
  'slack',
] as const;

export type ReadyPolicyName = (typeof READY_POLICY_NAMES)[number];

export const READY_POLICIES: Readonly<Record<ReadyPolicyName, PolicyMap>> = {
  filesystem: FILESYSTEM_POLICY,
  memory: MEMORY_POLICY,
  everything: EVERYTHING_POLICY,
  git: GIT_POLICY,
  fetch: FETCH_POLICY,
  time: TIME_POLICY,
  github: GITHUB_POLICY,
  postgres: POSTGRES_POLICY,
  slack: SLACK_POLICY,
};
