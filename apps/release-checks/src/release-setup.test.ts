/**
 * The release machinery a real registry needs is in place and consistent:
 * the release script, the workflow that runs it, the changesets settings
 * that keep releases independent, and the policy they implement.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishablePackages, readManifest, workspaceRoot } from './workspace.js';

const ROOT = workspaceRoot();
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface ChangesetConfig {
  readonly fixed: readonly unknown[];
  readonly linked: readonly unknown[];
  readonly access: string;
  readonly baseBranch: string;
  readonly privatePackages?: { readonly version?: boolean; readonly tag?: boolean };
  readonly ___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH?: {
    readonly onlyUpdatePeerDependentsWhenOutOfRange?: boolean;
  };
}

describe('release setup', () => {
  const scripts = readManifest(join(ROOT, 'package.json')).scripts ?? {};

  it('`pnpm release` builds every package, then runs changeset publish with provenance', () => {
    const release = scripts.release ?? '';
    expect(release).toMatch(/^turbo run build --filter="\.\/packages\/\*" && /);
    expect(release).toContain('NPM_CONFIG_PROVENANCE=true changeset publish');
    expect(scripts['version-packages']).toBe('changeset version');
  });

  it('`pnpm test` runs the changeset gate before the tasks', () => {
    expect(scripts.test).toBe('node scripts/test.mjs');
    const runner = read('scripts/test.mjs');
    const gate = runner.indexOf("'scripts/check-changesets.mjs'");
    expect(gate).toBeGreaterThan(0);
    expect(runner.indexOf("'turbo', 'run', 'typecheck'", gate)).toBeGreaterThan(gate);
  });

  it('the release workflow runs CI, then the changesets action with provenance', () => {
    const workflow = read('.github/workflows/release.yml');
    expect(workflow).toContain('branches: [main]');
    expect(workflow).toContain('id-token: write');
    expect(workflow).toContain('fetch-depth: 0');
    expect(workflow).toMatch(/- run: \.ci\/run\n[\s\S]*- uses: changesets\/action@v1/);
    expect(workflow).toContain('publish: pnpm release');
    expect(workflow).toContain('version: pnpm version-packages');
    expect(workflow).toContain('NPM_CONFIG_PROVENANCE: true');
  });

  it('changesets releases every package on its own line', () => {
    const config = JSON.parse(read('.changeset/config.json')) as ChangesetConfig;
    expect(config.fixed).toEqual([]);
    expect(config.linked).toEqual([]);
    expect(config.access).toBe('public');
    expect(config.baseBranch).toBe('main');
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    expect(config.___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH?.onlyUpdatePeerDependentsWhenOutOfRange).toBe(true);
  });

  it('every publishable package is a devDependency of the release checks, so it is built before it is packed', () => {
    const own = readManifest(join(ROOT, 'apps', 'release-checks', 'package.json'));
    for (const pkg of publishablePackages(ROOT)) expect(own.devDependencies?.[pkg.name], pkg.name).toBe('workspace:*');
  });

  it('VERSIONING.md states the policy the checks enforce', () => {
    expect(existsSync(join(ROOT, 'VERSIONING.md'))).toBe(true);
    const policy = read('VERSIONING.md');
    for (const topic of [
      'Wire break',
      'new identifier',
      'TypeScript API break',
      'dropped support',
      'raising a peer floor',
      'at least minor',
      'Deprecation',
      'at least 12 months',
      'Experimental',
      'changeset gate',
    ]) {
      expect(policy.toLowerCase()).toContain(topic.toLowerCase());
    }
  });

  it('the root README shows the two-package install and the supported SDK matrix', () => {
    const readme = read('README.md');
    const start = readme.indexOf('## Install only what you need');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    expect(section).toContain('npm install @ext/core @ext/errors\n');
    expect(section).toMatch(/\| SDK line \| packages \| peer range \| tested against \|/);
    expect(section).toContain('VERSIONING.md');
  });
});
