/** The shape every ready policy has, and the entry the read-only tools of every server share. */
import type { ToolPolicy } from '../config/schema.js';

/** Upstream tool names to their policy: the config's `policy` map, keyed by exact names only. */
export type PolicyMap = Readonly<Record<string, ToolPolicy>>;

/**
 * A tool that only reads: nothing to confirm, and nothing to deduplicate (a
 * repeated read has no effect to repeat). Said outright rather than left to
 * the upstream's annotations, which some servers do not send.
 */
export const READ_ONLY: ToolPolicy = { confirm: false, idempotent: false };
