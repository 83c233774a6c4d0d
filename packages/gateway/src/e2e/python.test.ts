/**
 * Python upstreams, unmodified from PyPI, behind the gateway with their ready
 * policies (`policies: [git, time]`): `mcp-server-git` confined to a
 * repository of the test's own, and `mcp-server-time`, both over stdio,
 * offered together (so as `git__<tool>` and `time__<tool>`) over Streamable
 * HTTP on each protocol era, to our client, the plain SDK client and the AI
 * SDK's client. What happened is read from the repository on disk with the
 * git command, not through the gateway. One gateway serves every test.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient, type ConfirmationRequest } from '@ext/confirmation/client';
import { COST_ID } from '@ext/cost';
import { costClient } from '@ext/cost/client';
import { errorsClient } from '@ext/errors/client';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { pythonUpstream } from '../upstream/testing/python.js';
import {
  closeAfter,
  closeAfterAll,
  connectClient,
  ERAS,
  errorOf,
  gatewayConfig,
  plainClient,
  serveGateway,
  tempDir,
  textOf,
  type ConnectedClient,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterAll();

const run = promisify(execFile);
const python = inject('pythonUpstreams');
const missing = 'unavailable' in python ? python.unavailable : undefined;

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// @ai-sdk/mcp declares `engines.node >= 22`; `pnpm test` runs the suite again on Node 24.
const AI_SDK_NODE = NODE_MAJOR >= 22;

/** `git <args>` in `repo`, its output trimmed. */
async function git(repo: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', repo, ...args]);
  return stdout.trim();
}

/** What a person would check after each call: the branch, the branches, the staged files and the commits. */
async function repoState(repo: string) {
  return {
    head: await git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'),
    branches: (await git(repo, 'branch', '--format=%(refname:short)')).split('\n'),
    staged: await git(repo, 'diff', '--cached', '--name-only'),
    commits: Number(await git(repo, 'rev-list', '--count', 'HEAD')),
  };
}

/** A repository with one commit on `main`, and an author for the commits the server makes. */
async function newRepository(): Promise<string> {
  const repo = await tempDir('git');
  await git(repo, 'init', '--quiet', '--initial-branch', 'main');
  await git(repo, 'config', 'user.name', 'Gateway Tests');
  await git(repo, 'config', 'user.email', 'gateway-tests@example.com');
  await writeFile(join(repo, 'README.md'), '# notes\n');
  await git(repo, 'add', 'README.md');
  await git(repo, 'commit', '--quiet', '-m', 'first commit');
  return repo;
}

/** Writes `file` in `repo` and stages it, behind the gateway's back. */
async function stageFile(repo: string, file: string, content: string): Promise<void> {
  await writeFile(join(repo, file), content);
  await git(repo, 'add', file);
}

interface PythonGateway extends ServedGateway {
  readonly repo: string;
}

async function pythonGateway(interpreter: string): Promise<PythonGateway> {
  const repo = await newRepository();
  const config = gatewayConfig({
    upstreams: {
      git: pythonUpstream(interpreter, 'git', ['--repository', repo]),
      time: pythonUpstream(interpreter, 'time', ['--local-timezone', 'UTC']),
    },
    policies: ['git', 'time'],
    identity: { anonymous: true },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), repo };
}

/** A person who answers `answer` to every question, remembering what was asked. */
function person(answer: boolean): {
  asked: ConfirmationRequest[];
  confirm: (r: ConfirmationRequest) => Promise<boolean>;
} {
  const asked: ConfirmationRequest[] = [];
  return {
    asked,
    confirm: (request) => {
      asked.push(request);
      return Promise.resolve(answer);
    },
  };
}

function ourClient(served: ServedGateway, era: Era): Promise<ConnectedClient> {
  return connectClient(served.url, {
    era,
    extensions: [errorsClient(), confirmationClient(), idempotencyClient(), costClient()],
  });
}

const GATED = [
  { tool: 'git__git_create_branch', args: (repo: string) => ({ repo_path: repo, branch_name: 'topic' }) },
  { tool: 'git__git_checkout', args: (repo: string) => ({ repo_path: repo, branch_name: 'main' }) },
  { tool: 'git__git_commit', args: (repo: string) => ({ repo_path: repo, message: 'not wanted' }) },
  { tool: 'git__git_reset', args: (repo: string) => ({ repo_path: repo }) },
] as const;

describe.skipIf(missing !== undefined)(
  `mcp-server-git and mcp-server-time behind the gateway, policies [git, time]${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    // One gateway for both eras: its upstreams take most of the time to start. The tests leave the
    // repository as they found it, but for what they name after their era (branches, files, commits).
    let served: PythonGateway;
    beforeAll(async () => {
      if ('python' in python) served = await pythonGateway(python.python);
    });

    describe.each(ERAS)('a %s client', (era) => {
      it('offers both servers under their prefixes, each tool with its ready policy', async () => {
        const { client } = await ourClient(served, era);
        const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
        expect([...tools.keys()].filter((name) => name.startsWith('time__'))).toEqual([
          'time__get_current_time',
          'time__convert_time',
        ]);
        expect(tools.get('git__git_commit')?._meta?.[CONFIRMATION_ID]).toEqual({
          requires_confirmation: true,
          risk_level: 'reversible',
          confirmation_message: 'Commit to {repo_path}: {message}',
        });
        expect(tools.get('git__git_commit')?._meta?.[IDEMPOTENCY_ID]).toEqual({ idempotent_capable: true });
        expect(tools.get('git__git_reset')?._meta?.[CONFIRMATION_ID]).toMatchObject({ risk_level: 'destructive' });
        expect(tools.get('git__git_reset')?.annotations?.destructiveHint).toBe(true);
        for (const name of ['git__git_checkout', 'git__git_create_branch']) {
          expect(tools.get(name)?._meta?.[CONFIRMATION_ID], name).toMatchObject({ requires_confirmation: true });
        }
        expect(tools.get('git__git_status')?._meta?.[CONFIRMATION_ID]).toMatchObject({ requires_confirmation: false });
        expect(tools.get('git__git_log')?._meta?.[IDEMPOTENCY_ID]).toEqual({ idempotent_capable: false });
        expect(tools.get('time__convert_time')?._meta?.[COST_ID]).toMatchObject({ cost: { category: 'free' } });
      });

      it('reads run unasked: the log, the status, and the time in another zone', async () => {
        const { client } = await ourClient(served, era);
        const log = await client.callTool('git__git_log', { repo_path: served.repo });
        expect(log.isError).toBeFalsy();
        expect(JSON.stringify(log.content)).toContain('first commit');
        const status = await client.callTool('git__git_status', { repo_path: served.repo });
        expect(textOf(status)).toContain('Repository status');

        const converted = await client.callTool('time__convert_time', {
          source_timezone: 'UTC',
          time: '12:00',
          target_timezone: 'Asia/Tokyo',
        });
        expect(converted.structuredContent).toMatchObject({
          target: { timezone: 'Asia/Tokyo', datetime: expect.stringMatching(/T21:00:00\+09:00$/) as unknown },
          time_difference: '+9.0h',
        });
        const now = await client.callTool('time__get_current_time', { timezone: 'Europe/Paris' });
        expect(now.structuredContent).toMatchObject({ timezone: 'Europe/Paris' });
      });

      it('git_create_branch, git_checkout, git_commit and git_reset wait for a person: declined, nothing changes', async () => {
        const { client } = await ourClient(served, era);
        await stageFile(served.repo, `declined-${era}.txt`, 'staged, never committed\n');
        const before = await repoState(served.repo);
        const nobody = person(false);
        for (const { tool, args } of GATED) {
          const declined = await callWithConfirmation(client, tool, args(served.repo), { confirm: nobody.confirm });
          expect(errorOf(declined).code, tool).toBe('CONFIRMATION_DECLINED');
        }
        expect(nobody.asked.map((request) => request.kind === 'call' && request.tool)).toEqual(
          GATED.map(({ tool }) => tool),
        );
        expect(await repoState(served.repo)).toEqual(before);
        await git(served.repo, 'reset', '--quiet');
      });

      it('approved, each runs: a branch is created and checked out, and the index reset', async () => {
        const { client } = await ourClient(served, era);
        const somebody = person(true);
        const branch = `feature-${era}`;
        const created = await callWithConfirmation(
          client,
          'git__git_create_branch',
          { repo_path: served.repo, branch_name: branch },
          { confirm: somebody.confirm },
        );
        expect(created.isError).toBeFalsy();
        expect((await repoState(served.repo)).branches).toContain(branch);

        const switched = await callWithConfirmation(
          client,
          'git__git_checkout',
          { repo_path: served.repo, branch_name: branch },
          { confirm: somebody.confirm },
        );
        expect(switched.isError).toBeFalsy();
        expect((await repoState(served.repo)).head).toBe(branch);

        await stageFile(served.repo, `reset-${era}.txt`, 'staged, then unstaged\n');
        const reset = await callWithConfirmation(
          client,
          'git__git_reset',
          { repo_path: served.repo },
          { confirm: somebody.confirm },
        );
        expect(reset.isError).toBeFalsy();
        expect((await repoState(served.repo)).staged).toBe('');
        expect(somebody.asked.map((request) => request.kind === 'call' && request.message)).toEqual([
          `Create branch ${branch} in ${served.repo}?`,
          `Check out ${branch} in ${served.repo}?`,
          `Unstage every staged change in ${served.repo}?`,
        ]);
        // git_add is not gated.
        const added = await client.callTool('git__git_add', { repo_path: served.repo, files: [`reset-${era}.txt`] });
        expect(added.isError).toBeFalsy();
        expect((await repoState(served.repo)).staged).toBe(`reset-${era}.txt`);
        await git(served.repo, 'reset', '--quiet');
      });

      it('a commit retried with the same idempotency key commits once, and the person is asked once', async () => {
        const { client } = await ourClient(served, era);
        await stageFile(served.repo, `order-${era}.txt`, 'order #1\n');
        const before = await repoState(served.repo);
        const somebody = person(true);
        const args = { repo_path: served.repo, message: `record order #1 (${era})` };
        const options = { confirm: somebody.confirm, meta: idempotencyMeta(`commit-order-${era}-0001`) };

        const first = await callWithConfirmation(client, 'git__git_commit', args, options);
        expect(first.isError).toBeFalsy();
        expect((await repoState(served.repo)).commits).toBe(before.commits + 1);
        // Staged again behind the gateway's back: a second execution would make a second commit.
        await stageFile(served.repo, `order-${era}.txt`, 'order #1, amended\n');

        const retried = await callWithConfirmation(client, 'git__git_commit', args, options);
        expect(getReplayInfo(retried)).toMatchObject({ idempotency_key: `commit-order-${era}-0001`, was_replay: true });
        expect(textOf(retried)).toBe(textOf(first));
        expect(await repoState(served.repo)).toMatchObject({ commits: before.commits + 1, staged: `order-${era}.txt` });
        expect(await git(served.repo, 'log', '-1', '--format=%s')).toBe(args.message);
        expect(somebody.asked).toHaveLength(1);
        await git(served.repo, 'reset', '--quiet');
      });

      it('a plain SDK client reads, and is refused the gated tools fail-closed', async () => {
        const before = await repoState(served.repo);
        const sdk = await plainClient(served.url, era);
        const now = await sdk.callTool({ name: 'time__get_current_time', arguments: { timezone: 'UTC' } });
        expect(now.structuredContent).toMatchObject({ timezone: 'UTC' });
        expect(
          textOf(
            await sdk.callTool({
              name: 'git__git_branch',
              arguments: { repo_path: served.repo, branch_type: 'local' },
            }),
          ),
        ).toContain('main');
        for (const { tool, args } of GATED) {
          const refused = await sdk.callTool({ name: tool, arguments: args(served.repo) });
          expect(refused.isError, tool).toBe(true);
          expect(textOf(refused), tool).toContain('the call was not executed');
        }
        expect(await repoState(served.repo)).toEqual(before);
      });

      it('an SDK client that can elicit is asked in-band, and the branch is created on its yes', async () => {
        const asked: ConfirmationRequest[] = [];
        const { sdk } = await connectClient(served.url, {
          era,
          elicit: (request) => {
            asked.push(request);
            return Promise.resolve(true);
          },
        });
        const branch = `asked-${era}`;
        const created = await sdk.callTool({
          name: 'git__git_create_branch',
          arguments: { repo_path: served.repo, branch_name: branch },
        });
        expect(created.isError).toBeFalsy();
        expect(asked).toEqual([expect.objectContaining({ kind: 'call', tool: 'git__git_create_branch' })]);
        expect((await repoState(served.repo)).branches).toContain(branch);
      });

      it.skipIf(!AI_SDK_NODE)(
        `the AI SDK MCP client reads the time as an AI SDK tool, and is refused a commit${AI_SDK_NODE ? '' : ' (skipped before Node 22: @ai-sdk/mcp needs it)'}`,
        async () => {
          // Loaded here, so that on an older Node the file still loads and this test is reported as skipped.
          const { createMCPClient } = await import('@ai-sdk/mcp');
          const client = await createMCPClient({
            transport: { type: 'http', url: served.url.href },
            protocolVersionDiscovery: era === 'modern',
          });
          closeAfter(() => client.close());
          expect(client.initializeResult.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');

          const tools = await client.tools();
          const convert = tools.time__convert_time;
          if (convert?.execute === undefined) throw new Error('time__convert_time is not an executable AI SDK tool');
          const converted = (await convert.execute(
            { source_timezone: 'UTC', time: '08:30', target_timezone: 'America/New_York' },
            { toolCallId: 'call-1', messages: [], context: {} },
          )) as { structuredContent?: unknown };
          expect(converted.structuredContent).toMatchObject({ target: { timezone: 'America/New_York' } });

          await stageFile(served.repo, `ai-${era}.txt`, 'staged for a commit that is refused\n');
          const before = await repoState(served.repo);
          const refused = await client.callTool({
            name: 'git__git_commit',
            arguments: { repo_path: served.repo, message: 'from the AI SDK' },
          });
          expect(refused.isError).toBe(true);
          expect(await repoState(served.repo)).toEqual(before);
          await git(served.repo, 'reset', '--quiet');
        },
      );
    });
  },
);
