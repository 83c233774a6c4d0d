// A model of independent releases: which packages a changeset bumps, and which dependents follow.
import semver from 'semver';
import type { PackageManifest } from './workspace.js';

export type Bump = 'patch' | 'minor' | 'major';

const ORDER: readonly Bump[] = ['patch', 'minor', 'major'];

function higher(a: Bump | undefined, b: Bump): Bump {
  return a === undefined || ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a;
}

/**
 * The range a manifest states on a sibling, as the release tooling reads
 * it: `workspace:^` and `workspace:~` are relative to the sibling's current
 * version, `workspace:*` pins it exactly (that is what `pnpm publish` writes).
 */
export function effectiveRange(range: string, currentVersion: string): string {
  if (!range.startsWith('workspace:')) return range;
  const rest = range.slice('workspace:'.length);
  if (rest === '*') return currentVersion;
  if (rest === '^' || rest === '~') return `${rest}${currentVersion}`;
  return rest;
}

/**
 * What a release should change, under the repository's policy (VERSIONING.md):
 * each named package gets its bump; a package whose `dependencies` or
 * `optionalDependencies` range on a released sibling no longer includes the
 * new version gets a patch (its range is rewritten); one whose
 * `peerDependencies` range is left gets a major (its users must move the peer
 * too); in-range dependents and `devDependencies` change nothing. Repeats
 * until nothing more moves. Private packages are never versioned. Returns
 * the new version of every package that changes.
 */
export function expectedReleases(
  manifests: readonly PackageManifest[],
  bumps: Readonly<Record<string, Bump>>,
): Map<string, string> {
  const published = manifests.filter((manifest) => manifest.private !== true);
  const byName = new Map(published.map((manifest) => [manifest.name, manifest]));
  const planned = new Map<string, Bump>();
  for (const [name, bump] of Object.entries(bumps)) {
    if (!byName.has(name)) throw new Error(`${name} is not a versioned package of the workspace`);
    planned.set(name, bump);
  }
  const next = (name: string): string => {
    const manifest = byName.get(name);
    const bump = planned.get(name);
    if (manifest === undefined || bump === undefined) throw new Error(`${name} is not planned`);
    const version = semver.inc(manifest.version, bump);
    if (version === null) throw new Error(`${name}: cannot ${bump} ${manifest.version}`);
    return version;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const dependent of published) {
      for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) {
        for (const [name, range] of Object.entries(dependent[field] ?? {})) {
          const dependency = byName.get(name);
          if (dependency === undefined || !planned.has(name)) continue;
          if (semver.satisfies(next(name), effectiveRange(range, dependency.version))) continue;
          const bump = higher(planned.get(dependent.name), field === 'peerDependencies' ? 'major' : 'patch');
          if (bump !== planned.get(dependent.name)) {
            planned.set(dependent.name, bump);
            changed = true;
          }
        }
      }
    }
  }
  return new Map([...planned.keys()].sort().map((name) => [name, next(name)]));
}
