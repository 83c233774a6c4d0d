// Which source files can load an SDK: a static scan of their imports, through local files and the workspace's entry points.
import { readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { importSpecifiers, packageOfSpecifier } from './matrix.js';
import type { WorkspacePackage } from './workspace.js';

/** Both SDK lines publish under this scope. */
const SDK_SCOPE = '@modelcontextprotocol/';

/**
 * Built-in modules that start another program. What that program imports is
 * out of the scan's sight, so a file that imports one of them counts as
 * reaching an SDK: the scan errs towards running a test, never towards
 * leaving one out.
 */
const STARTS_PROGRAMS = new Set(['child_process', 'worker_threads']);

/**
 * The source file of each entry point of `packages`, from the `default`
 * target of its `exports` (`./dist/testing/index.js` is built from
 * `src/testing/index.ts`): `@ext/core/testing` -> `<core>/src/testing/index.ts`.
 */
export function entrySources(packages: readonly WorkspacePackage[]): Map<string, string> {
  const entries = new Map<string, string>();
  for (const pkg of packages) {
    for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
      const built = typeof target === 'object' && target !== null ? (target as { default?: unknown }).default : target;
      if (typeof built !== 'string' || !built.startsWith('./dist/') || !built.endsWith('.js')) continue;
      const source = `${built.slice('./dist/'.length, -'.js'.length)}.ts`;
      entries.set(`${pkg.name}${subpath.slice(1)}`, join(pkg.dir, 'src', source));
    }
  }
  return entries;
}

/** A file's source, or `undefined` when there is no such file. */
export type ReadSource = (file: string) => string | undefined;

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // Not there: the resolver tries the next candidate or reports what it could not follow.
    return undefined;
  }
}

/** What one file imports: an SDK (or a program starter) directly, and the files it leads to. */
interface Imports {
  readonly direct: string | undefined;
  readonly next: readonly { readonly specifier: string; readonly file: string }[];
}

/**
 * Follows static imports (type-only ones too) from a file: relative imports
 * to the files they name, workspace packages' entry points to their sources
 * (`entries`); an SDK package or a program starter ends the search.
 * Third-party packages are not followed: none that the packages use depends
 * on an SDK. An import it cannot
 * follow (a missing file, an entry point it does not know) is an error, never
 * a silent "does not reach".
 */
export class SdkReach {
  readonly #entries: ReadonlyMap<string, string>;
  readonly #workspacePackages: ReadonlySet<string>;
  readonly #read: ReadSource;
  readonly #sources = new Map<string, string | undefined>();
  readonly #imports = new Map<string, Imports>();
  /** Settled answers: a route, or `null` for "reaches no SDK". */
  readonly #routes = new Map<string, readonly string[] | null>();

  constructor(entries: ReadonlyMap<string, string>, read: ReadSource = readIfPresent) {
    this.#entries = entries;
    this.#workspacePackages = new Set([...entries.keys()].flatMap((specifier) => packageOfSpecifier(specifier) ?? []));
    this.#read = read;
  }

  /** The imports leading from `file` to an SDK package, one specifier per step; `undefined` when none does. */
  route(file: string): readonly string[] | undefined {
    const visited = new Set<string>();
    const found = this.#search(resolve(file), visited);
    // A search that found nothing explored everything reachable from each visited file.
    if (found === undefined) for (const seen of visited) this.#routes.set(seen, null);
    return found;
  }

  #search(file: string, visited: Set<string>): readonly string[] | undefined {
    const settled = this.#routes.get(file);
    if (settled !== undefined) return settled ?? undefined;
    if (visited.has(file)) return undefined;
    visited.add(file);
    const { direct, next } = this.#importsOf(file);
    let found: readonly string[] | undefined = direct === undefined ? undefined : [direct];
    for (const step of next) {
      if (found !== undefined) break;
      const rest = this.#search(step.file, visited);
      if (rest !== undefined) found = [step.specifier, ...rest];
    }
    if (found !== undefined) this.#routes.set(file, found);
    return found;
  }

  #importsOf(file: string): Imports {
    const known = this.#imports.get(file);
    if (known !== undefined) return known;
    const source = this.#source(file);
    if (source === undefined) throw new Error(`the SDK import scan cannot read ${file}`);
    const specifiers = [...importSpecifiers(source)];
    const direct =
      specifiers.find((specifier) => specifier.startsWith(SDK_SCOPE)) ??
      specifiers.find((specifier) => STARTS_PROGRAMS.has(specifier.replace(/^node:/, '')));
    const next: { specifier: string; file: string }[] = [];
    for (const specifier of specifiers) {
      const target = this.#resolve(file, specifier);
      if (target !== undefined) next.push({ specifier, file: target });
    }
    const imports = { direct, next };
    this.#imports.set(file, imports);
    return imports;
  }

  /** The file `specifier` loads from `file` when the scan follows it; `undefined` when it leads to no scanned source. */
  #resolve(file: string, specifier: string): string | undefined {
    if (specifier.startsWith('.')) return this.#resolveRelative(file, specifier);
    const entry = this.#entries.get(specifier);
    if (entry !== undefined) return entry;
    const name = packageOfSpecifier(specifier);
    if (name !== undefined && this.#workspacePackages.has(name) && !specifier.endsWith('.json'))
      throw new Error(`${file} imports ${specifier}, which is not an entry point of ${name} the SDK import scan knows`);
    return undefined;
  }

  #resolveRelative(file: string, specifier: string): string | undefined {
    const written = resolve(dirname(file), specifier);
    const extension = extname(written);
    const stem = written.slice(0, written.length - extension.length);
    const candidates: Record<string, readonly string[]> = {
      '': [`${written}.ts`, join(written, 'index.ts')],
      '.js': [`${stem}.ts`, written],
      '.mjs': [`${stem}.mts`, written],
      '.ts': [written],
      '.mts': [written],
    };
    // Data and assets (JSON schemas, fixtures) import nothing.
    const tried = candidates[extension];
    if (tried === undefined) return undefined;
    const found = tried.find((candidate) => this.#source(candidate) !== undefined);
    if (found === undefined) throw new Error(`${file} imports ${specifier}: the SDK import scan finds no such file`);
    return found;
  }

  #source(file: string): string | undefined {
    if (!this.#sources.has(file)) this.#sources.set(file, this.#read(file));
    return this.#sources.get(file);
  }
}
