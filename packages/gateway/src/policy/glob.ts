/**
 * Matching tool names against policy keys: `*` stands for any run of
 * characters (none included), `?` for exactly one, every other character for
 * itself; a key matches a whole name, never a part. Pure.
 */
import { TOOL_GLOB_PATTERN } from '../config/patterns.js';

const VALID_GLOB = new RegExp(TOOL_GLOB_PATTERN);

/** Whether `key` can be a policy key: tool-name characters and the two wildcards. */
export function isValidGlob(key: string): boolean {
  return VALID_GLOB.test(key);
}

/**
 * Whether `globText` matches the whole of `nameText`. Backtracks only to the
 * last `*` seen (no regular expression): at most length × length steps, so a
 * hostile key cannot make it slow.
 */
export function globMatches(globText: string, nameText: string): boolean {
  // By code point, so `?` stands for one character even outside the Basic Multilingual Plane.
  const glob = Array.from(globText);
  const name = Array.from(nameText);
  let g = 0;
  let n = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (n < name.length) {
    const char = glob[g];
    if (char === '*') {
      starAt = g;
      resumeAt = n;
      g += 1;
    } else if (char !== undefined && (char === '?' || char === name[n])) {
      g += 1;
      n += 1;
    } else if (starAt >= 0) {
      // Let the last `*` take one more character and try again after it.
      g = starAt + 1;
      resumeAt += 1;
      n = resumeAt;
    } else {
      return false;
    }
  }
  while (glob[g] === '*') g += 1;
  return g === glob.length;
}

/** Whether any of `names` matches `glob` (a tool is matched by its exposed and its own name). */
export function globMatchesAny(glob: string, names: readonly string[]): boolean {
  return names.some((name) => globMatches(glob, name));
}
