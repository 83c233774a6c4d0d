/**
 * `mcp-server-git` (PyPI, read from 2026.10.19): everything that moves a
 * branch, the index or the working tree is confirmed, and every write is
 * deduplicated, so a retried commit commits once.
 */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

export const GIT_POLICY: PolicyMap = {
  // Records history under the caller's message; undone only by another commit or a reset.
  git_commit: { confirm: { message: 'Commit to {repo_path}: {message}', risk: 'reversible' }, idempotent: true },
  // Unstages everything staged: a partly staged file loses the staged version.
  git_reset: {
    confirm: { message: 'Unstage every staged change in {repo_path}?', risk: 'destructive' },
    idempotent: true,
  },
  // Changes the files of the working tree, and where the next commit goes.
  git_checkout: {
    confirm: { message: 'Check out {branch_name} in {repo_path}?', risk: 'reversible' },
    idempotent: true,
  },
  // A new ref others may push to; a retry would fail on the branch the first call created.
  git_create_branch: {
    confirm: { message: 'Create branch {branch_name} in {repo_path}?', risk: 'reversible' },
    idempotent: true,
  },
  // Only stages (git_reset undoes it): not worth a question, but retried once.
  git_add: { confirm: false, idempotent: true },
  git_status: READ_ONLY,
  git_diff_unstaged: READ_ONLY,
  git_diff_staged: READ_ONLY,
  git_diff: READ_ONLY,
  git_log: READ_ONLY,
  git_show: READ_ONLY,
  git_branch: READ_ONLY,
};
