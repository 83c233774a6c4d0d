// Scratch npm projects outside the workspace: their manifest, installs, the versions the registry publishes, and what their imports load.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { TimedOut, childEnv, run } from './run.js';

export interface ProjectManifest {
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>> | undefined;
}

/** Writes a private ESM package.json for a scratch project. */
export function writeProject(dir: string, name: string, manifest: ProjectManifest): void {
  const contents = { name, version: '0.0.0', private: true, type: 'module', ...manifest };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(contents, null, 2)}\n`);
}

/** One install attempt may take this long before it is killed and tried again. */
const INSTALL_ATTEMPT_MS = 240_000;
const INSTALL_ATTEMPTS = 2;

/**
 * `npm install` in `dir` with plain npm: no workspace, no lockfile, no
 * install scripts of dependencies unless `scripts` (none of ours has any).
 * An attempt that stalls (a registry that stops answering mid-download) is
 * killed and tried once more; a failing install is not retried.
 */
export async function npmInstall(
  dir: string,
  extraArgs: readonly string[] = [],
  options: { scripts?: boolean } = {},
): Promise<void> {
  const args = [
    'install',
    '--no-package-lock',
    '--prefer-offline',
    ...(options.scripts === true ? [] : ['--ignore-scripts']),
    ...extraArgs,
  ];
  for (let attempt = 1; ; attempt += 1) {
    try {
      await run('npm', args, { cwd: dir, env: childEnv(), timeoutMs: INSTALL_ATTEMPT_MS });
      return;
    } catch (error) {
      if (attempt >= INSTALL_ATTEMPTS || !(error instanceof TimedOut)) throw error;
    }
  }
}

/** Parses `npm view <name>@<range> version --json`: one string for one match, an array for several. */
export function parseViewVersions(json: string): string[] {
  const trimmed = json.trim();
  if (trimmed === '') return [];
  const parsed: unknown = JSON.parse(trimmed);
  const list = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  return list.filter((value): value is string => typeof value === 'string' && semver.valid(value) !== null);
}

/**
 * Every published version of `name` inside `range` (pre-releases excluded
 * unless the range names one), oldest first, as the registry reports them.
 */
export async function publishedVersionsIn(name: string, range: string, cwd: string): Promise<string[]> {
  const { stdout } = await run('npm', ['view', `${name}@${range}`, 'version', '--json'], { cwd, timeoutMs: 120_000 });
  return semver.sort(parseViewVersions(stdout).filter((version) => semver.satisfies(version, range)));
}

/** What importing each entry does in the scratch project `dir`: `'ok'`, or the error's code. */
export async function importOutcomes(dir: string, entries: readonly string[]): Promise<Record<string, string>> {
  const script = `
    const seen = {};
    for (const entry of ${JSON.stringify(entries)}) {
      try { await import(entry); seen[entry] = 'ok'; } catch (error) { seen[entry] = error.code ?? String(error); }
    }
    console.log(JSON.stringify(seen));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
  return JSON.parse(stdout) as Record<string, string>;
}
