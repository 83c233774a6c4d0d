#!/usr/bin/env node
/**
 * Every code block of every README is a region of a type-checked file.
 *
 * A README shows TypeScript or JavaScript only as a copy of a region of an
 * example file, named on the line just before the block:
 *
 *     <!-- example: examples/serve.ts#listen -->
 *     ```ts
 *     ...the region's text...
 *     ```
 *
 * The path is relative to the README; the region lies between
 * `// #region listen` and `// #endregion listen` in that file (the whole file
 * when `#name` is left out), with its common indentation removed. The file
 * must belong to a workspace package whose tsconfig.json includes its folder,
 * so `pnpm test` type-checks and lints it. This check fails on a block
 * without a source, a missing file or region, a file no tsconfig covers, and a
 * block that differs from its region. `--write` copies the regions into the
 * READMEs instead; `--root=<dir>` checks another checkout.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootArgument = process.argv.find((argument) => argument.startsWith('--root='));
const ROOT = rootArgument === undefined ? fileURLToPath(new URL('..', import.meta.url)) : rootArgument.slice(7);
const CODE = /^```(ts|typescript|tsx|js|javascript|mjs)\s*$/;
const FENCE = /^```/;
const SOURCE = /^<!--\s*example:\s*(\S+?)(?:#([\w-]+))?\s*-->\s*$/;
const WORKSPACES = ['packages', 'apps', 'tools'];

/** The README files checked: the root's, each workspace package's, and the root examples'. */
function readmes() {
  const found = ['README.md'];
  for (const workspace of WORKSPACES) {
    const folder = join(ROOT, workspace);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      const readme = join(workspace, name, 'README.md');
      if (existsSync(join(ROOT, readme))) found.push(readme);
    }
  }
  return found.filter((readme) => existsSync(join(ROOT, readme)));
}

/** Removes the indentation every non-blank line shares. */
function dedent(lines) {
  const widths = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)[0].length);
  const cut = widths.length === 0 ? 0 : Math.min(...widths);
  return lines.map((line) => line.slice(cut));
}

const MARKER = /^\s*\/\/\s*#(end)?region\b/;

/** The text of `region` in `text` (the whole text without region markers when `region` is undefined). */
export function regionOf(text, region) {
  const lines = text.replace(/\n$/, '').split('\n');
  if (region === undefined) return lines.filter((line) => !MARKER.test(line)).join('\n');
  const start = lines.findIndex((line) => new RegExp(`^\\s*//\\s*#region ${region}\\s*$`).test(line));
  const end = lines.findIndex((line) => new RegExp(`^\\s*//\\s*#endregion ${region}\\s*$`).test(line));
  if (start === -1 || end === -1 || end < start) return undefined;
  return dedent(lines.slice(start + 1, end).filter((line) => !MARKER.test(line))).join('\n');
}

/** The workspace package folder holding `file`, and whether its tsconfig.json includes the file's top folder. */
function typeChecked(file) {
  let folder = dirname(file);
  const root = resolve(ROOT);
  while (folder.startsWith(root) && folder !== root && !existsSync(join(folder, 'package.json')))
    folder = dirname(folder);
  const tsconfig = join(folder, 'tsconfig.json');
  if (folder === root || !existsSync(tsconfig)) return false;
  const inside = relative(folder, file).split(sep);
  const { include = [] } = JSON.parse(readFileSync(tsconfig, 'utf8'));
  const atTop = (entry) => inside.length === 1 && entry.startsWith('*.') && inside[0].endsWith(entry.slice(1));
  return include.some((entry) => entry === inside[0] || entry.startsWith(`${inside[0]}/`) || atTop(entry));
}

/** The blocks of one README: where each starts and ends, and its declared source. */
export function blocksOf(lines) {
  const blocks = [];
  for (let at = 0; at < lines.length; at += 1) {
    if (!FENCE.test(lines[at])) continue;
    let end = at + 1;
    while (end < lines.length && !FENCE.test(lines[end])) end += 1;
    if (CODE.test(lines[at])) {
      const source = SOURCE.exec(lines[at - 1] ?? '');
      blocks.push({ open: at, close: end, path: source?.[1], region: source?.[2] });
    }
    at = end;
  }
  return blocks;
}

function checkReadme(readme, write, problems) {
  const path = join(ROOT, readme);
  const lines = readFileSync(path, 'utf8').split('\n');
  let changed = false;
  for (const block of blocksOf(lines).reverse()) {
    const where = `${readme}:${block.open + 1}`;
    if (block.path === undefined) {
      problems.push(`${where}: code block without "<!-- example: <file>#<region> -->" on the line before`);
      continue;
    }
    const file = join(dirname(path), block.path);
    if (!existsSync(file)) {
      problems.push(`${where}: example file ${block.path} does not exist`);
      continue;
    }
    if (!typeChecked(file)) problems.push(`${where}: ${block.path} is in no package's tsconfig.json "include"`);
    const expected = regionOf(readFileSync(file, 'utf8'), block.region);
    if (expected === undefined) {
      problems.push(`${where}: ${block.path} has no region "${block.region}"`);
      continue;
    }
    const shown = lines.slice(block.open + 1, block.close).join('\n');
    if (shown === expected) continue;
    if (write) {
      lines.splice(block.open + 1, block.close - block.open - 1, ...expected.split('\n'));
      changed = true;
    } else {
      problems.push(`${where}: block differs from ${block.path}#${block.region ?? ''} (pnpm examples:sync copies it)`);
    }
  }
  if (changed) writeFileSync(path, lines.join('\n'));
  return changed;
}

function main() {
  const write = process.argv.includes('--write');
  const problems = [];
  const list = readmes();
  const rewritten = list.filter((readme) => checkReadme(readme, write, problems));
  for (const readme of rewritten) console.error(`examples: rewrote ${readme}`);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`examples: ${problem}`);
    console.error(`examples: ${problems.length} problem(s) in README code blocks`);
    process.exit(1);
  }
  console.error(`examples: ${list.length} READMEs, every code block is a checked example`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
