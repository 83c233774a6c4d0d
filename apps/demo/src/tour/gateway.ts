/**
 * Step 20 of the tour: @ext/gateway in front of an unmodified MCP server. The
 * gateway starts in this process from `gateway.yaml` (the official filesystem
 * server on a temporary folder), and a client speaking confirmation and
 * idempotency writes through it: approval first, a retry replayed, a flood
 * stopped by the quota.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, type ExtendedClient, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { CONFIRMATION_ID } from '@ext/confirmation';
import {
  callManyWithConfirmation,
  callWithConfirmation,
  confirmationClient,
  type ConfirmCallback,
} from '@ext/confirmation/client';
import { getStructuredError } from '@ext/errors/client';
import { createGateway, loadConfig, type Gateway, type GatewayConfig, type Upstream } from '@ext/gateway';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { connect, type Connection } from '../client/connect.js';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import type { TourTarget } from './target.js';

/** The file the step writes, its key, and how many writes the flood sends (over twice the quota, so some are refused). */
const PLAN = { path: 'plan.md', content: '# Plan\n\n- put the gateway in front\n' };
const PLAN_KEY = 'tour-write-plan-1';
const FLOOD = 12;

/**
 * `config` as the CLI runs it from the app's folder, but serving `folder`:
 * each stdio server's script (its first argument) resolved against
 * `appFolder`, and the server started in `folder`, which its `.` names. Pure.
 */
export function servingFolder(config: GatewayConfig, appFolder: string, folder: string): GatewayConfig {
  const moved = (upstream: Upstream): Upstream => {
    if (!('command' in upstream)) return upstream;
    const [script, ...rest] = upstream.args ?? [];
    return { ...upstream, args: script === undefined ? [] : [resolve(appFolder, script), ...rest], cwd: folder };
  };
  const upstreams = Object.fromEntries(Object.entries(config.upstreams).map(([name, up]) => [name, moved(up)]));
  return { ...config, upstreams };
}

/** The config file's settings, comments left out, as the tour prints them. */
export function settingsOf(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .join('\n');
}

/** `write_file`'s policy in one line, as the gateway resolved it from the config. */
function writePolicy(gateway: Gateway): string {
  const policy = gateway.tools.find((tool) => tool.name === 'write_file')?.policy;
  expect(policy !== undefined, 'the gateway does not offer write_file');
  const quota = policy.cost?.quota;
  expect(policy.confirm?.message !== undefined && quota !== undefined, 'write_file has no approval or no quota');
  return `confirm "${policy.confirm.message}" (${policy.confirm.risk}), idempotent ${String(policy.idempotent)}, quota ${String(quota.limit)} ${policy.cost?.unit ?? 'units'} per ${String(quota.windowSeconds)} s`;
}

/** A person who approves everything, noting what they were asked. */
function approver(asked: string[]): ConfirmCallback {
  return (request) => {
    if (request.kind === 'call') {
      asked.push(request.message);
      row('gateway -> client', `confirmation_required (${request.riskLevel}): "${request.message}"`);
    } else if (request.kind === 'batch') {
      asked.push(`${String(request.calls.length)} calls`);
      row('gateway -> client', `${String(request.calls.length)} calls held for confirmation (${request.riskLevel})`);
    }
    row('person', 'approves (the tour answers yes for you)');
    return Promise.resolve(true);
  };
}

/** The write, held until a person approves it, then run by the upstream. */
async function approvedWrite(client: ExtendedClient, folder: string): Promise<ToolResult> {
  row('client -> gateway', `tools/call write_file ${compact(PLAN)}, idempotency key ${PLAN_KEY}`);
  const asked: string[] = [];
  const meta = idempotencyMeta(PLAN_KEY);
  const result = await callWithConfirmation(client, 'write_file', PLAN, { confirm: approver(asked), meta });
  expect(asked.length === 1 && asked[0] === `Write ${PLAN.path}?`, `the gateway did not ask "Write ${PLAN.path}?"`);
  expect(dig(result._meta, CONFIRMATION_ID, 'status') === 'confirmed', `the approved write failed: ${compact(result)}`);
  const written = await readFile(join(folder, PLAN.path), 'utf8');
  expect(written === PLAN.content, 'the upstream did not write the file');
  row('gateway -> client', `${compact(dig(result.structuredContent, 'content'))} ${compact(getReplayInfo(result))}`);
  row('on disk', `${PLAN.path}: ${compact(written)}`);
  return result;
}

/** The same write again with the same key (its reply was lost): replayed, so the edit made since is kept. */
async function retriedWrite(client: ExtendedClient, folder: string, first: ToolResult): Promise<void> {
  const file = join(folder, PLAN.path);
  const edited = `${PLAN.content}- a line a person added since\n`;
  await writeFile(file, edited);
  row('meanwhile', `a person adds a line to ${PLAN.path}; the client never got the reply and retries`);
  row('client -> gateway', `the same write_file, the same idempotency key ${PLAN_KEY}`);
  const asked: string[] = [];
  const meta = idempotencyMeta(PLAN_KEY);
  const again = await callWithConfirmation(client, 'write_file', PLAN, { confirm: approver(asked), meta });
  const replay = getReplayInfo(again);
  row('gateway -> client', `${compact(replay)}, without asking again: a replay runs nothing`);
  const after = await readFile(file, 'utf8');
  row('on disk', `${PLAN.path}: ${compact(after)}`);
  expect(replay?.was_replay === true, `the retry was not a replay: ${compact(again)}`);
  expect(replay.original_timestamp === getReplayInfo(first)?.original_timestamp, 'the replay is of another call');
  expect(after === edited, 'the retry wrote the file a second time');
  expect(asked.length === 0, `the replay asked the person again: ${compact(asked)}`);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** A burst of writes, approved as one batch: the quota lets some run and refuses the rest before they do. */
async function flood(client: ExtendedClient, folder: string): Promise<void> {
  const calls = Array.from({ length: FLOOD }, (_, index) => ({
    name: 'write_file',
    arguments: { path: `flood-${String(index + 1).padStart(2, '0')}.txt`, content: 'spam\n' },
  }));
  row('client -> gateway', `${String(FLOOD)} write_file calls at once (flood-01.txt to flood-${String(FLOOD)}.txt)`);
  const results = await callManyWithConfirmation(client, calls, { confirm: approver([]) });
  const refused = results.flatMap((result, index) => {
    const error = result.isError === true ? getStructuredError(result) : undefined;
    return error === undefined ? [] : [{ error, path: String(calls[index]?.arguments.path) }];
  });
  const first = refused[0]?.error;
  expect(first !== undefined, `the quota let all ${String(FLOOD)} writes through`);
  row(
    'gateway -> client',
    `${String(FLOOD - refused.length)} written; ${String(refused.length)} refused: ${first.code} (${first.category}), retry_after_seconds ${String(first.retry_after_seconds)}`,
  );
  row('', first.message);
  for (const { error, path } of refused) {
    expect(error.code === 'QUOTA_EXHAUSTED' && error.category === 'rate_limited', `${path}: ${compact(error)}`);
    expect((error.retry_after_seconds ?? 0) > 0, `${path} was refused without retry_after_seconds`);
    expect(!(await exists(join(folder, path))), `${path} was refused but written`);
  }
  const written = results.length - refused.length;
  expect(written > 0 && results.length === FLOOD, 'the approved flood wrote nothing');
  row('on disk', `${String(written)} flood files; the refused writes never reached the filesystem server`);
}

/** Serves the gateway, connects a client speaking confirmation and idempotency, and runs the three scenes. */
async function throughGateway(tour: TourTarget, gateway: Gateway, folder: string): Promise<void> {
  const server = await listen(gateway.http, { port: 0, host: '127.0.0.1', logger: silentLogger });
  let connection: Connection | undefined;
  try {
    row('gateway', `${server.url.href} -> the filesystem server, serving a temporary folder`);
    connection = await connect(
      { kind: 'http', url: server.url },
      { era: tour.era, extensions: [confirmationClient(), idempotencyClient()], name: 'gateway-client' },
    );
    const client = connection.extended;
    expect(client !== undefined, 'the gateway client has no extensions attached');
    print();
    const first = await approvedWrite(client, folder);
    print();
    await retriedWrite(client, folder, first);
    print();
    await flood(client, folder);
  } finally {
    await connection?.close();
    await server.close();
  }
}

/** Step 20: the gateway from `config` (the app's `gateway.yaml`) on a temporary folder. */
export async function gatewayStep(tour: TourTarget, config: URL): Promise<void> {
  const path = fileURLToPath(config);
  const loaded = await loadConfig(path);
  row(basename(path), settingsOf(await readFile(path, 'utf8')));
  const folder = await mkdtemp(join(tmpdir(), 'gateway-tour-'));
  try {
    // The tour keeps nothing across runs: a store in memory instead of the config's SQLite file.
    const gateway = await createGateway(servingFolder(loaded.config, dirname(loaded.path), folder), {
      manifests: loaded.manifests,
      store: new MemoryStore(),
      logger: silentLogger,
    });
    try {
      row('write_file', writePolicy(gateway));
      await throughGateway(tour, gateway, folder);
    } finally {
      await gateway.close();
    }
    print();
    ok('the server was not changed: the gateway asked first, ran a retried write once, and stopped the flood.');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
