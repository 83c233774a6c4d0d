/**
 * The README example check (`scripts/check-readme-examples.mjs`, run early by
 * `pnpm test`): every code block of a README is a region of an example file
 * that a package's tsconfig covers. Exercised on small throwaway checkouts,
 * where each rule can be made to pass and to fail, and `--write` can repair.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, tempDir, type RunResult } from './run.js';
import { workspaceRoot } from './workspace.js';

const SCRIPT = join(workspaceRoot(), 'scripts', 'check-readme-examples.mjs');
const EXAMPLE = [
  '/** An example. */',
  "import { readFileSync } from 'node:fs';",
  '',
  '// #region read',
  'export function read(path: string): string {',
  "  return readFileSync(path, 'utf8');",
  '}',
  '// #endregion read',
  '',
].join('\n');
const REGION = ['export function read(path: string): string {', "  return readFileSync(path, 'utf8');", '}'].join('\n');

let checkout: { readonly path: string; remove(): void } | undefined;

function dir(): string {
  if (checkout === undefined) throw new Error('no checkout');
  return checkout.path;
}

function write(file: string, content: string): void {
  mkdirSync(dirname(join(dir(), file)), { recursive: true });
  writeFileSync(join(dir(), file), content);
}

function readme(...blocks: string[]): void {
  write('packages/alpha/README.md', `# alpha\n\nSome prose.\n\n${blocks.join('\n\n')}\n`);
}

function block(source: string | undefined, text: string): string {
  return `${source === undefined ? '' : `<!-- example: ${source} -->\n`}\`\`\`ts\n${text}\n\`\`\``;
}

function check(...args: string[]): Promise<RunResult> {
  return run(process.execPath, [SCRIPT, `--root=${dir()}`, ...args], { cwd: dir(), allowFailure: true });
}

beforeEach(() => {
  checkout = tempDir('readme-examples');
  write('README.md', '# root\n\n```sh\npnpm test\n```\n');
  write('packages/alpha/package.json', '{ "name": "@ext/alpha" }\n');
  write('packages/alpha/tsconfig.json', '{ "include": ["src", "examples"] }\n');
  write('packages/alpha/examples/read.ts', EXAMPLE);
});

afterEach(() => {
  checkout?.remove();
  checkout = undefined;
});

describe('the README example check', () => {
  it('passes when every code block equals its region; other blocks (sh) need no source', async () => {
    readme(block('examples/read.ts#read', REGION));
    const result = await check();
    expect(result.stderr).toContain('every code block is a checked example');
    expect(result.code).toBe(0);
  });

  it('fails on a block without a source, naming the README line', async () => {
    readme(block(undefined, REGION));
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('packages/alpha/README.md:5: code block without');
  });

  it('fails on a block that differs from its region, and --write repairs it', async () => {
    readme(block('examples/read.ts#read', 'export function read() {}'));
    const failed = await check();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('block differs from examples/read.ts#read');
    const repaired = await check('--write');
    expect(repaired.stderr).toContain('rewrote packages/alpha/README.md');
    expect(readFileSync(join(dir(), 'packages/alpha/README.md'), 'utf8')).toContain(REGION);
    expect((await check()).code).toBe(0);
  });

  it('fails on a missing file or region', async () => {
    readme(block('examples/gone.ts#read', REGION), block('examples/read.ts#write', REGION));
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('example file examples/gone.ts does not exist');
    expect(result.stderr).toContain('examples/read.ts has no region "write"');
  });

  it('fails on an example file no tsconfig.json includes, so nothing type-checks it', async () => {
    write('packages/alpha/tsconfig.json', '{ "include": ["src"] }\n');
    readme(block('examples/read.ts#read', REGION));
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("examples/read.ts is in no package's tsconfig.json");
  });

  it('shows a whole file, without its region markers, when the source names no region', async () => {
    readme(block('examples/read.ts', EXAMPLE.replace(/\/\/ #(end)?region read\n/g, '').trimEnd()));
    expect((await check()).code).toBe(0);
  });
});

describe('regions', () => {
  it('any indented region reads back as its lines with the common indentation removed', async () => {
    const { regionOf } = (await import(SCRIPT)) as {
      regionOf: (text: string, region?: string) => string | undefined;
    };
    const line = fc.stringMatching(/^[a-z(){};' ]{0,20}$/);
    const lines = fc.array(line, { minLength: 1, maxLength: 8 }).filter((all) => all.some((l) => l.trim() !== ''));
    fc.assert(
      fc.property(lines, fc.nat(6), (lines, indent) => {
        const pad = ' '.repeat(indent);
        const text = ['before();', `${pad}// #region r`, ...lines.map((l) => pad + l), `${pad}// #endregion r`, ''];
        const shown = regionOf(text.join('\n'), 'r');
        const width = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
        expect(shown).toBe(lines.map((l) => l.slice(width)).join('\n'));
      }),
    );
  });
});
