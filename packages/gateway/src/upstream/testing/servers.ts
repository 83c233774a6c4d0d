/**
 * Test support: real upstreams for the upstream tests and what the tests
 * check them with. An SDK v2 server over Streamable HTTP on both eras whose
 * tools can be added or changed while it runs (`v2-upstream.ts`); an SDK v1
 * server over HTTP (`v1-upstream.ts`); where the npm servers' bin files are;
 * the child processes of this process; a logger that records. The servers
 * are re-exported here so that a test imports its fixtures from one place.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from '@ext/core';

export { serveV1 } from './v1-upstream.js';
export { REFUSED_CREDENTIALS, serveV2, type V2Upstream } from './v2-upstream.js';

const require = createRequire(import.meta.url);

/** The file an npm package's only bin runs (resolved from its package.json, not via npx). */
export function binOf(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (bin === undefined) throw new Error(`${packageName} has no bin`);
  return join(dirname(manifestPath), bin);
}

/** The command lines of this process's children that mention `marker`. */
export function childProcesses(marker: string): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // `ps` exits 1 when there is no child at all.
  }
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(marker));
}

/** The pid of this process's only child whose command line mentions `marker`. */
export function childPid(marker: string): number {
  const lines = childProcesses(marker);
  if (lines.length !== 1) throw new Error(`expected one child running ${marker}, found ${lines.length}`);
  return Number.parseInt(lines[0]!.split(' ')[0]!, 10);
}

export interface LogEntry {
  readonly level: 'warn' | 'error' | 'debug';
  readonly message: string;
  readonly details: Record<string, unknown> | undefined;
}

/** A logger keeping what it is told (`entries`), warnings and errors apart from debug lines. */
export function recordingLogger(): Logger & { readonly entries: LogEntry[]; warnings(): LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    warnings: () => entries.filter((entry) => entry.level !== 'debug'),
    warn: (message, details) => entries.push({ level: 'warn', message, details }),
    error: (message, details) => entries.push({ level: 'error', message, details }),
    debug: (message, details) => entries.push({ level: 'debug', message, details }),
  };
}
