/** Which version of a server the index recommends: version order, publication times, registry status. Pure. */
import type { IndexedEntry } from './registry-entry.js';

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function comparePrerelease(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  // A release sorts after any of its prereleases.
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const diff = Number(x) - Number(y);
      if (diff !== 0) return Math.sign(diff);
    } else if (xn !== yn) {
      return xn ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/**
 * Orders two version strings: semantic versions by precedence, any
 * semantic version above a non-semantic one, non-semantic ones by plain
 * string order. Negative, zero or positive, as for `Array.sort`.
 */
export function compareVersions(a: string, b: string): number {
  const x = SEMVER.exec(a);
  const y = SEMVER.exec(b);
  if (x && y) {
    for (let i = 1; i <= 3; i += 1) {
      const diff = Number(x[i]) - Number(y[i]);
      if (diff !== 0) return Math.sign(diff);
    }
    return comparePrerelease(x[4], y[4]);
  }
  if (x) return 1;
  if (y) return -1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** A registry timestamp in ms, `-Infinity` when absent or unreadable (so it sorts first). */
export function timeOf(value: string | undefined): number {
  if (value === undefined) return Number.NEGATIVE_INFINITY;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
}

/**
 * The version of one server the index recommends: deleted versions never
 * count; among the rest, the one the registry flags `isLatest` (the most
 * recently published if several are flagged), else the highest version.
 * `undefined` when every version is deleted. Pure.
 */
export function pickLatest(versions: readonly IndexedEntry[]): IndexedEntry | undefined {
  const alive = versions.filter((entry) => entry.official.status !== 'deleted');
  const flagged = alive.filter((entry) => entry.official.isLatest === true);
  const pool = flagged.length > 0 ? flagged : alive;
  let best: IndexedEntry | undefined;
  for (const entry of pool) {
    if (best === undefined) {
      best = entry;
      continue;
    }
    const order =
      flagged.length > 0
        ? Math.sign(timeOf(entry.official.publishedAt) - timeOf(best.official.publishedAt)) ||
          compareVersions(entry.version, best.version)
        : compareVersions(entry.version, best.version) ||
          Math.sign(timeOf(entry.official.publishedAt) - timeOf(best.official.publishedAt));
    if (order > 0) best = entry;
  }
  return best;
}

/** Whether a registry status lets the index recommend a server: absent (a bare `server.json`) or `active`. */
export function isRecommendable(entry: IndexedEntry): boolean {
  return entry.official.status === undefined || entry.official.status === 'active';
}
