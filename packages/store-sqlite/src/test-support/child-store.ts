/**
 * Runs this package's real `SqliteStore` in a child process, for tests that
 * need a second process on the same file or a process of another user.
 * Node 20 cannot load TypeScript, so the sources are transpiled (types
 * stripped) into the package's node_modules/.cache, where the drivers
 * (`better-sqlite3`, `better-sqlite3-node20`) and `@ext/core` resolve as usual.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const sourceDir = join(packageRoot, 'src');
// One directory per test file (each loads this module afresh), so one file's cleanup never removes another's.
const cacheDir = join(packageRoot, 'node_modules', '.cache', 'store-sqlite-tests', `${process.pid}-${randomUUID()}`);

let compiled: Promise<string> | undefined;

/** The URL of the transpiled `sqlite-store` module (compiled once per test process). */
export function childModule(): Promise<string> {
  compiled ??= compileChildModule();
  return compiled;
}

// Every source file next to the store, so its relative imports resolve too.
async function compileChildModule(): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  const files = (await readdir(sourceDir)).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  for (const name of files) {
    const source = await readFile(join(sourceDir, name), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    await writeFile(join(cacheDir, name.replace(/\.ts$/, '.js')), outputText);
  }
  return pathToFileURL(join(cacheDir, 'sqlite-store.js')).href;
}

/** Removes what `childModule` compiled (an `afterAll`). */
export async function removeChildModule(): Promise<void> {
  if (compiled) await rm(cacheDir, { recursive: true, force: true });
  compiled = undefined;
}

export interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `script` (an ES module) with `args`; `user` runs it as another uid/gid (the parent must be root);
 * `nodeArgs` are options for node itself (`--expose-gc`).
 */
export function runNode(
  script: string,
  args: readonly string[],
  user?: { readonly uid: number; readonly gid: number },
  nodeArgs: readonly string[] = [],
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--input-type=module', '-e', script, '--', ...args], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Whether `user` can run this Node and read the transpiled module: not when the checkout sits
 * below a directory only its owner may enter (e.g. one made by `mktemp -d`).
 */
export async function childModuleReadableBy(user: { readonly uid: number; readonly gid: number }): Promise<boolean> {
  const module = fileURLToPath(await childModule());
  const probe = `await (await import('node:fs/promises')).access(process.argv[1], ${String(constants.R_OK)});`;
  // nobody may not even run this Node: on the Node 24 pass it is a binary inside the checkout.
  const result = await runNode(probe, [module], user).catch(() => undefined);
  return result?.code === 0;
}
