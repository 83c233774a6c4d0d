/**
 * Session memory: legacy-era `initialize` requests that never DELETE their
 * session, sent to core's `createHttpHandler` (SDK v2 and v1) with the
 * default session limits, and the RSS of the server process before and
 * after. Each run is a child process of its own (`sessions-server.ts`).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { formatBytes, markdownTable, withMarkedSection } from './markdown.js';
import type { MemorySample, SessionsAnswer } from './sessions-server.js';

/** What the default limits allow open at once (`DEFAULT_MAX_SESSIONS` of `@ext/core`). */
const DEFAULT_MAX = 1_000;

export interface SessionsRun {
  readonly line: 'v1' | 'v2';
  /** `undefined`: the default limits. */
  readonly max: number | undefined;
  readonly count: number;
  readonly answer: SessionsAnswer;
}

async function runChild(line: 'v1' | 'v2', count: number, max: number | undefined): Promise<SessionsAnswer> {
  const child = fork(
    new URL('./sessions-server.js', import.meta.url),
    [line, String(count), max === undefined ? 'default' : String(max)],
    {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = once(child, 'exit');
  const [message] = (await Promise.race([once(child, 'message'), exited.then(() => [undefined])])) as [
    SessionsAnswer | { type: 'failed'; message: string } | undefined,
  ];
  await exited;
  if (message?.type !== 'done')
    throw new Error(`sessions: the ${line} run failed: ${message === undefined ? 'no answer' : message.message}`);
  return message;
}

/**
 * Runs `count` initializes on each line with the default limits, then, to
 * show what a session costs, `compareCount` with the limit raised above
 * the count (what the handlers did before they had limits).
 */
export async function benchSessions(options: {
  readonly count: number;
  readonly compareCount: number;
  readonly progress: (text: string) => void;
}): Promise<SessionsRun[]> {
  const runs: SessionsRun[] = [];
  for (const line of ['v2', 'v1'] as const) {
    for (const [count, max] of [
      [options.count, undefined],
      [options.compareCount, options.compareCount + 1],
    ] as const) {
      const answer = await runChild(line, count, max);
      const last = answer.samples.at(-1);
      options.progress(
        `sessions ${line} ${String(count)} initializes, max ${max === undefined ? 'default' : String(max)}: RSS ${formatBytes(last?.rss ?? Number.NaN)}`,
      );
      runs.push({ line, max, count, answer });
    }
  }
  return runs;
}

function first(samples: readonly MemorySample[]): MemorySample | undefined {
  return samples[0];
}

function peak(samples: readonly MemorySample[]): number {
  return Math.max(...samples.map((sample) => sample.rss));
}

/** RSS after the first `sent` initializes (the first sample at or past it). */
function rssAt(samples: readonly MemorySample[], sent: number): number {
  return samples.find((sample) => sample.sent >= sent)?.rss ?? Number.NaN;
}

/** The section of BENCHMARKS.md, heading included. */
export function renderSessions(runs: readonly SessionsRun[], machine: string, date: string): string {
  const rows = runs.map((run) => {
    const start = first(run.answer.samples);
    const end = run.answer.samples.at(-1);
    const open = run.answer.statuses['200'] ?? 0;
    const refused = run.answer.statuses['503'] ?? 0;
    return [
      run.line === 'v2' ? 'SDK v2 (2025-11-25 era)' : 'SDK v1',
      run.max === undefined
        ? `default (${DEFAULT_MAX.toLocaleString('en-US')})`
        : `raised to ${run.max.toLocaleString('en-US')}`,
      run.count.toLocaleString('en-US'),
      `${open.toLocaleString('en-US')} / ${refused.toLocaleString('en-US')}`,
      formatBytes(start?.rss ?? Number.NaN),
      formatBytes(rssAt(run.answer.samples, DEFAULT_MAX)),
      formatBytes(end?.rss ?? Number.NaN),
      formatBytes(peak(run.answer.samples)),
      formatBytes(((end?.heapUsed ?? Number.NaN) - (start?.heapUsed ?? Number.NaN)) / Math.max(1, open)),
      `${(run.answer.elapsedMs / 1000).toFixed(1)} s`,
    ];
  });
  return `## Legacy-era sessions: memory

Written by \`pnpm --filter @ext/bench bench:sessions\` (\`src/sessions.ts\`), last on ${date}.

Legacy-era (2025-11-25) clients that send \`initialize\` and never
DELETE their session, sent one after another to core's \`createHttpHandler\`
in process (no network), with the full stack composed (every extension).
Each row is a fresh server process started with \`--expose-gc\`; RSS and heap
are read after a full garbage collection. With the default limits
(\`sessions: { max: 1,000, idleTimeoutMs: 15 min }\`) the table fills, every
later \`initialize\` is answered \`503\` with \`Retry-After\`, and RSS stops
growing; the rows with the limit raised above the count show what each
session costs when nothing bounds them (what the handlers did before).
The server here has one tool; a session of a server with more tools and
schemas costs more, so size \`sessions.max\` to the heap. RSS is sampled
after 1,000 initializes and after every tenth of the run.

Machine: ${machine}.

${markdownTable(
  [
    'SDK line',
    'session limit',
    'initializes',
    'opened / refused (503)',
    'RSS before',
    'RSS after 1,000',
    'RSS after all',
    'peak RSS (sampled)',
    'heap per open session',
    'time',
  ],
  rows,
  ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
)}`;
}

/** `previous` (BENCHMARKS.md) with its sessions section replaced by `section`, or `section` added at the end. */
export function withSessionsSection(previous: string, section: string): string {
  return withMarkedSection(previous, 'sessions', section);
}
