/**
 * `@modelcontextprotocol/server-filesystem` (npm, read from 2026.8.31): the
 * tools that change files are confirmed and deduplicated, the rest only read.
 */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

export const FILESYSTEM_POLICY: PolicyMap = {
  // Replaces the whole file without warning: what was there is lost.
  write_file: {
    confirm: { message: 'Write {path}? An existing file is replaced.', risk: 'destructive' },
    idempotent: true,
  },
  // Changes lines in place (the upstream returns the diff); a dry run changes nothing and is not asked about.
  edit_file: {
    confirm: { message: 'Edit {path}?', risk: 'reversible', when: '!has(args.dryRun) || args.dryRun != true' },
    idempotent: true,
  },
  // Fails when the destination exists, so nothing is overwritten; it can be moved back.
  move_file: { confirm: { message: 'Move {source} to {destination}?', risk: 'reversible' }, idempotent: true },
  // Creates missing folders only (`mkdir -p`): nothing to ask, safe to retry.
  create_directory: { confirm: false, idempotent: true },
  // The deprecated name of read_text_file, still offered.
  read_file: READ_ONLY,
  read_text_file: READ_ONLY,
  read_media_file: READ_ONLY,
  read_multiple_files: READ_ONLY,
  list_directory: READ_ONLY,
  list_directory_with_sizes: READ_ONLY,
  list_allowed_directories: READ_ONLY,
  get_file_info: READ_ONLY,
  // Both walk a whole tree: bounded so that a loop of them cannot keep the disk busy.
  directory_tree: { ...READ_ONLY, cost: { unit: 'tree walks', latency: 'seconds', rateLimit: { perMinute: 30 } } },
  search_files: { ...READ_ONLY, cost: { unit: 'tree walks', latency: 'seconds', rateLimit: { perMinute: 30 } } },
};
