/**
 * `@modelcontextprotocol/server-github` (npm, read from 2025.4.8), which
 * annotates none of its tools: without this policy every tool would run
 * unasked. What others see, or what is hard to undo, is confirmed; every
 * write is deduplicated and held under GitHub's own limits on content
 * creation, so a client is told when to retry instead of the token being
 * blocked.
 */
import type { ToolPolicy } from '../config/schema.js';
import { READ_ONLY, type PolicyMap } from './policy-map.js';

/** GitHub's secondary limits on requests that create content: 80 a minute, 500 an hour. */
const WRITES = { unit: 'writes', latency: 'seconds', rateLimit: { perMinute: 80, perHour: 500 } } as const;

/** A write others see, or that lands in a repository: asked about at `risk`, run once per key. */
const write = (message: string, risk: 'reversible' | 'destructive' = 'reversible'): ToolPolicy => ({
  confirm: { message, risk },
  idempotent: true,
  cost: WRITES,
});

/** The search API allows 30 requests a minute. */
const SEARCH: ToolPolicy = {
  ...READ_ONLY,
  cost: { unit: 'searches', latency: 'seconds', rateLimit: { perMinute: 30 } },
};

export const GITHUB_POLICY: PolicyMap = {
  // Both commit to a branch, possibly the default one.
  create_or_update_file: write('Commit {path} to {owner}/{repo} on {branch}: {message}'),
  push_files: write('Push a commit of {files} to {owner}/{repo} on {branch}: {message}'),
  create_repository: write('Create the repository {name}?'),
  // A public copy under the token's account or organization.
  fork_repository: write('Fork {owner}/{repo}?'),
  // Everyone watching the repository is notified.
  create_issue: write('Open an issue in {owner}/{repo}: {title}'),
  update_issue: write('Update issue #{issue_number} in {owner}/{repo}?'),
  add_issue_comment: write('Comment on #{issue_number} in {owner}/{repo}: {body}'),
  create_pull_request: write('Open a pull request in {owner}/{repo} from {head} into {base}: {title}'),
  // An approving review can satisfy branch protection.
  create_pull_request_review: write('Submit a {event} review on #{pull_number} in {owner}/{repo}: {body}'),
  // Lands the change on the base branch; only a revert takes it back.
  merge_pull_request: write('Merge pull request #{pull_number} into {owner}/{repo}?', 'destructive'),
  update_pull_request_branch: write('Merge the base branch into pull request #{pull_number} of {owner}/{repo}?'),
  // A new ref only: cheap to delete, not worth a question, but retried once.
  create_branch: { confirm: false, idempotent: true, cost: WRITES },
  search_repositories: SEARCH,
  search_code: SEARCH,
  search_issues: SEARCH,
  search_users: SEARCH,
  get_file_contents: READ_ONLY,
  list_commits: READ_ONLY,
  list_issues: READ_ONLY,
  get_issue: READ_ONLY,
  get_pull_request: READ_ONLY,
  list_pull_requests: READ_ONLY,
  get_pull_request_files: READ_ONLY,
  get_pull_request_status: READ_ONLY,
  get_pull_request_comments: READ_ONLY,
  get_pull_request_reviews: READ_ONLY,
};
