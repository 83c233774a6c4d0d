/**
 * `pnpm --filter @ext/bench bench:profile <file.cpuprofile>...`: where each
 * profiled process spent its CPU (see `cpu-profile.ts`), the top functions
 * and packages by self time, as markdown tables. `--top N` for more or fewer.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { summarizeProfile, type CpuProfile, type ProfileEntry } from './cpu-profile.js';
import { formatDuration, markdownTable } from './markdown.js';

function rows(entries: readonly ProfileEntry[], busyMs: number): string[][] {
  return entries.map((entry) => [
    entry.name,
    formatDuration(entry.selfMs),
    `${((entry.selfMs / busyMs) * 100).toFixed(1)}%`,
  ]);
}

function main(): void {
  const args = process.argv.slice(2);
  const at = args.indexOf('--top');
  const top = at === -1 ? 25 : Number.parseInt(args[at + 1] ?? '25', 10);
  const files = args.filter((_, index) => index !== at && index !== at + 1);
  if (files.length === 0) throw new Error('bench:profile: give one or more .cpuprofile files');
  for (const file of files) {
    const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
    const table = (first: string, entries: readonly ProfileEntry[]): string =>
      markdownTable([first, 'self time', 'of busy time'], rows(entries, summary.busyMs), ['left', 'right', 'right']);
    console.log(`## ${basename(file)}\n`);
    console.log(`Sampled ${formatDuration(summary.totalMs)}, busy ${formatDuration(summary.busyMs)}.\n`);
    console.log(`${table('package, with the Node frames it called', summary.callers)}\n`);
    console.log(`${table('package', summary.packages)}\n`);
    console.log(`${table('function', summary.functions)}\n`);
  }
}

main();
