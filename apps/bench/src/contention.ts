/**
 * Duplicate writes under contention: two server instances sharing one Redis
 * (the full stack on `@ext/store-redis`), the machine kept busy by a CPU
 * burner on every core, and 200 concurrent calls of one tool with one
 * idempotency key, half to each instance. What must hold: the tool runs
 * exactly once, and a healthy Redis is never reported unavailable
 * (`SERVICE_UNAVAILABLE`), however late the instances' event loops run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createRedisStore } from '@ext/store-redis';
import { startChild, type ChildServer } from './child.js';
import {
  EXECUTIONS_KEY,
  WRITE_TOOL,
  type ContentionAnswer,
  type ContentionCommand,
  type ContentionServerConfig,
} from './contention-setup.js';
import { formatDuration, type BenchSection } from './markdown.js';

const ERRORS_ID = 'io.github.mcp-ext/errors';
const IDEMPOTENCY_ID = 'io.github.mcp-ext/idempotency';
const PROTOCOL_VERSION = '2026-07-28';
/** Concurrent duplicate writes, over two instances sharing Redis. */
export const CONTENTION_CALLS = 200;
/** The store's deadline in each run: the default, and one far below the backlog. */
export const CONTENTION_TIMEOUTS: readonly number[] = [500, 50];
/** A call answered "in progress" is asked again, as a client's retry policy would, at most this often. */
const MAX_ATTEMPTS = 20;

export interface ContentionOptions {
  readonly redisUrl: string | undefined;
  /** Concurrent calls in all, split evenly over the two instances. */
  readonly calls: number;
  /** The store's `commandTimeoutMs` in each run: the default, and one the backlog surely exceeds. */
  readonly commandTimeouts: readonly number[];
  readonly progress: (line: string) => void;
}

export interface ContentionRow {
  readonly commandTimeoutMs: number;
  readonly calls: number;
  /** Times the tool ran, as it counted itself in the store. */
  readonly executions: number;
  readonly replays: number;
  /** `IDEMPOTENCY_IN_PROGRESS` answers, each followed by a retry. */
  readonly inProgress: number;
  readonly unavailable: number;
  /** Any other failure, by code. */
  readonly otherErrors: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
  readonly maxLoopDelayMs: number;
  readonly outagesLogged: number;
  readonly load: string;
}

type Outcome = 'executed' | 'replayed' | 'unavailable' | `error:${string}`;

/** One `tools/call` on 2026-07-28 with the idempotency key; the answer's result, or a JSON-RPC error as a result-like object. */
async function callOnce(url: string, key: string): Promise<Record<string, unknown>> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: WRITE_TOOL,
      arguments: { text: 'the same note' },
      _meta: {
        [IDEMPOTENCY_ID]: { idempotency_key: key },
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {
          extensions: { [ERRORS_ID]: { version: '1.0' }, [IDEMPOTENCY_ID]: { version: '1.0' } },
        },
        'io.modelcontextprotocol/clientInfo': { name: 'bench-contention', version: '0.0.0' },
      },
    },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': WRITE_TOOL,
      'x-user': 'bench',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data:'));
  const answer = JSON.parse(data === undefined ? text : data.slice(5)) as {
    result?: Record<string, unknown>;
    error?: { data?: { code?: string } };
  };
  return answer.result ?? { isError: true, _meta: { [ERRORS_ID]: { code: answer.error?.data?.code ?? 'JSON_RPC' } } };
}

/** A logical call: asked again while the first execution is in flight elsewhere; what it finally got. */
async function logicalCall(url: string, key: string, counts: { inProgress: number }): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    const result = await callOnce(url, key);
    const meta = (result._meta ?? {}) as Record<string, { code?: string; was_replay?: boolean } | undefined>;
    if (result.isError !== true) return meta[IDEMPOTENCY_ID]?.was_replay === true ? 'replayed' : 'executed';
    const code = meta[ERRORS_ID]?.code ?? 'UNSTRUCTURED';
    if (code === 'SERVICE_UNAVAILABLE') return 'unavailable';
    if (code !== 'IDEMPOTENCY_IN_PROGRESS' || attempt >= MAX_ATTEMPTS) return `error:${code}`;
    counts.inProgress += 1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Spins until killed, and in any case once its parent is gone or after two minutes: a burner must never outlive a run. */
const BURNER = `const parent = process.ppid; const end = Date.now() + 120000;
for (let i = 1; ; i++) if (i % 1e6 === 0 && (process.ppid !== parent || Date.now() > end)) break;`;

/** One process per core spinning for as long as the run lasts. */
function startBurners(): ChildProcess[] {
  return cpus().map(() => spawn(process.execPath, ['-e', BURNER], { stdio: 'ignore' }));
}

async function runOnce(redisUrl: string, calls: number, commandTimeoutMs: number): Promise<ContentionRow> {
  const config: ContentionServerConfig = {
    redisUrl,
    keyPrefix: `mcp-ext-bench-contention:${randomUUID()}:`,
    commandTimeoutMs,
  };
  const entry = new URL('./contention-server.js', import.meta.url);
  const servers: ChildServer<ContentionCommand, ContentionAnswer>[] = [];
  const burners: ChildProcess[] = [];
  const reader = await createRedisStore({ url: redisUrl, keyPrefix: config.keyPrefix, commandTimeoutMs: 10_000 });
  try {
    for (let index = 0; index < 2; index++) servers.push(await startChild(entry, [JSON.stringify(config)]));
    const urls = servers.map((server) => (server.ready as { url: string }).url);
    burners.push(...startBurners());
    // Let the burners take the cores before the burst.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await Promise.all(servers.map((server) => server.request({ type: 'reset' })));
    const key = randomUUID();
    const counts = { inProgress: 0 };
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: calls }, (_, index) => logicalCall(urls[index % urls.length] ?? '', key, counts)),
    );
    const elapsedMs = performance.now() - started;
    const load = loadavg()[0]?.toFixed(2) ?? '?';
    const stats = await Promise.all(servers.map((server) => server.request({ type: 'stats' })));
    const otherErrors: Record<string, number> = {};
    for (const outcome of outcomes.filter((each) => each.startsWith('error:'))) {
      otherErrors[outcome.slice(6)] = (otherErrors[outcome.slice(6)] ?? 0) + 1;
    }
    const delays = stats.map((answer) => (answer.type === 'stats' ? answer : undefined));
    return {
      commandTimeoutMs,
      calls,
      executions: Number((await reader.get(EXECUTIONS_KEY)) ?? 0),
      replays: outcomes.filter((outcome) => outcome === 'replayed').length,
      inProgress: counts.inProgress,
      unavailable: outcomes.filter((outcome) => outcome === 'unavailable').length,
      otherErrors,
      elapsedMs,
      maxLoopDelayMs: Math.max(...delays.map((answer) => answer?.maxLoopDelayMs ?? 0)),
      outagesLogged: delays.reduce((sum, answer) => sum + (answer?.outages ?? 0), 0),
      load,
    };
  } finally {
    for (const burner of burners) burner.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.stop()));
    await reader.close();
  }
}

/** Runs the benchmark once per `commandTimeoutMs`; no rows without `REDIS_URL`. */
export async function benchContention(options: ContentionOptions): Promise<ContentionRow[]> {
  const { redisUrl } = options;
  if (redisUrl === undefined) return [];
  const rows: ContentionRow[] = [];
  for (const timeout of options.commandTimeouts) {
    options.progress(`contention: ${String(options.calls)} duplicate writes, commandTimeoutMs ${String(timeout)}`);
    rows.push(await runOnce(redisUrl, options.calls, timeout));
  }
  return rows;
}

function errorsCell(errors: Readonly<Record<string, number>>): string {
  const entries = Object.entries(errors);
  return entries.length === 0 ? '0' : entries.map(([code, count]) => `${String(count)} \`${code}\``).join(', ');
}

/** The section of BENCHMARKS.md: the rows, and whether each held to exactly one execution and no outage. */
export function renderContention(rows: readonly ContentionRow[], calls: number): BenchSection {
  const title = 'Duplicate writes under contention (two instances, one Redis, a busy machine)';
  const intro = [
    `${String(calls)} concurrent \`tools/call\` of one tool with one idempotency key, half to each of two`,
    'server instances (the full stack on `@ext/store-redis`, one shared Redis), while a CPU burner spins on',
    'every core. A call answered `IDEMPOTENCY_IN_PROGRESS` is asked again after 100 ms, as a client would.',
    'The tool counts its executions in the store. "Loop delay" is the longest an instance\'s event loop ran',
    'late during the burst: a Redis deadline that counted it would have refused calls a healthy Redis answered.',
  ].join('\n');
  if (rows.length === 0) {
    return {
      title,
      markdown: `${intro}\n\nNot measured: \`REDIS_URL\` was unset (run \`REDIS_URL=redis://127.0.0.1:6390 pnpm bench\`).`,
      targets: [],
    };
  }
  const header =
    '| `commandTimeoutMs` | calls | executions | replays | in progress (retried) | `SERVICE_UNAVAILABLE` | other errors | outages logged | loop delay (max) | time | load (1 min) |\n|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|';
  const lines = rows.map(
    (row) =>
      `| ${String(row.commandTimeoutMs)} ms | ${String(row.calls)} | ${String(row.executions)} | ${String(row.replays)} | ${String(row.inProgress)} | ${String(row.unavailable)} | ${errorsCell(row.otherErrors)} | ${String(row.outagesLogged)} | ${formatDuration(row.maxLoopDelayMs)} | ${formatDuration(row.elapsedMs)} | ${row.load} |`,
  );
  const targets = rows.flatMap((row) => [
    {
      name: `duplicate writes, commandTimeoutMs ${String(row.commandTimeoutMs)}: exactly one execution`,
      met: row.executions === 1,
      detail: `${String(row.executions)} execution(s)`,
    },
    {
      name: `duplicate writes, commandTimeoutMs ${String(row.commandTimeoutMs)}: no SERVICE_UNAVAILABLE on a healthy Redis`,
      met: row.unavailable === 0 && row.outagesLogged === 0,
      detail: `${String(row.unavailable)} refused, ${String(row.outagesLogged)} outage(s) logged`,
    },
  ]);
  return { title, markdown: `${intro}\n\n${header}\n${lines.join('\n')}`, targets };
}

/** The section as BENCHMARKS.md holds it (between `<!-- contention:start -->` and its end), with the verdicts. */
export function contentionMarkdown(
  rows: readonly ContentionRow[],
  calls: number,
  machine: string,
  date: string,
): string {
  const section = renderContention(rows, calls);
  const verdicts = section.targets.map(
    (target) => `- ${target.met ? 'met' : '**missed**'}: ${target.name} (${target.detail})`,
  );
  return [
    `## ${section.title}`,
    `Written by \`pnpm bench\` and \`pnpm --filter @ext/bench bench:contention\` (\`src/contention.ts\`), last on ${date}.`,
    section.markdown,
    `Machine: ${machine}.`,
    ...(verdicts.length === 0 ? [] : [verdicts.join('\n')]),
  ].join('\n\n');
}
