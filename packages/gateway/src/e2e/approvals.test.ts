/**
 * Calls held for an operator (GW-29 to GW-32), end to end: the unmodified
 * filesystem server behind the gateway, `write_file` approved by an
 * operator. A client that cannot be asked is answered `CONFIRMATION_PENDING`
 * and its retry runs once the operator approved (on the page's API, in a
 * real Chromium, through a webhook's signed link, or with the CLI); a
 * 2026-07-28 client that declared Tasks gets a task that goes from
 * `working` to `completed`. Denial and expiry leave no file and say so;
 * approvals bind to the caller and the arguments; only the approver scope
 * decides. What happened is read from the disk.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOOL_APPROVAL_DISPOSITION_KEY } from '@ext/confirmation/approvals';
import { errorsClient } from '@ext/errors/client';
import { rawClient } from '@ext/core/testing';
import { getTask, pollTask, TASKS_ID } from '@ext/tasks/client';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { serveV2 } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  compiledCli,
  connectClient,
  errorOf,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  type ServedGateway,
} from './support.js';
import { startWebhookReceiver } from './webhook-receiver.js';

closeAfterEach();
const cli = compiledCli();

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OTHER_AGENT_KEY = 'other-agent-key-0123456789';
const OPS_KEY = 'ops-key-0123456789abcdef';
const VIEWER_KEY = 'viewer-key-0123456789abcdef';

interface HeldGateway extends ServedGateway {
  readonly root: string;
  /** The approvals API. */
  readonly api: string;
}

async function heldGateway(approvals: Record<string, unknown> = {}): Promise<HeldGateway> {
  const root = await tempDir('approvals');
  const config = gatewayConfig({
    upstreams: { files: filesystemUpstream(root) },
    policy: { write_file: { confirm: { approver: 'operator', message: 'Write {path}?' } } },
    approvals: { holdSeconds: 0, ...approvals },
    identity: {
      apiKeys: {
        [AGENT_KEY]: 'agent',
        [OTHER_AGENT_KEY]: 'other-agent',
        [OPS_KEY]: { principal: 'ops', scopes: ['approvals:decide'] },
        [VIEWER_KEY]: { principal: 'viewer', scopes: ['files:read'] },
      },
    },
    store: 'memory',
  });
  const served = await serveGateway(config);
  return { ...served, root, api: new URL('/approvals/api', served.url).href };
}

async function agent(served: HeldGateway, key = AGENT_KEY, era: 'legacy' | 'modern' = 'legacy') {
  return connectClient(served.url, { era, extensions: [errorsClient()], headers: { authorization: `Bearer ${key}` } });
}

function write(path: string, content = 'hello') {
  return { path, content };
}

async function api(served: HeldGateway, path: string, init: RequestInit & { key?: string } = {}) {
  const { key = OPS_KEY, ...rest } = init;
  const response = await fetch(`${served.api}${path}`, {
    ...rest,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function decide(served: HeldGateway, id: string, approve: boolean, reason?: string, key?: string) {
  return api(served, `/requests/${id}/decision`, {
    method: 'POST',
    body: JSON.stringify({ approve, ...(reason === undefined ? {} : { reason }) }),
    ...(key === undefined ? {} : { key }),
  });
}

function approvalIdOf(result: unknown): string {
  const error = errorOf(result);
  expect(error).toMatchObject({ code: 'CONFIRMATION_PENDING', category: 'transient' });
  return (error.details as { approval_id: string }).approval_id;
}

async function onDisk(root: string, file: string): Promise<string | undefined> {
  return readFile(join(root, file), 'utf8').catch(() => undefined);
}

describe('write_file approved by an operator, behind the gateway', () => {
  it('holds a client that cannot be asked; its retry runs once after the operator approves', async () => {
    const served = await heldGateway();
    const { sdk } = await agent(served);
    const path = join(served.root, 'a.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    expect(await onDisk(served.root, 'a.txt')).toBeUndefined();
    expect(approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }))).toBe(id);

    const listed = await api(served, '/requests?state=pending');
    expect(listed.body.requests).toEqual([
      expect.objectContaining({ id, tool: 'write_file', principal: 'id:agent', risk_level: 'destructive' }),
    ]);
    expect((await decide(served, id, true, 'ok')).status).toBe(200);
    const done = await sdk.callTool({ name: 'write_file', arguments: write(path) });
    expect(done.isError).toBeFalsy();
    expect(done._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('approved-executed');
    expect(await onDisk(served.root, 'a.txt')).toBe('hello');
  });

  it('leaves no file when denied, and says why', async () => {
    const served = await heldGateway();
    const { sdk } = await agent(served);
    const path = join(served.root, 'denied.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    await decide(served, id, false, 'not this file');
    const refused = errorOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    expect(refused).toMatchObject({ code: 'CONFIRMATION_DENIED', category: 'permanent' });
    expect(refused.message).toContain('not this file');
    expect(await onDisk(served.root, 'denied.txt')).toBeUndefined();
  });

  it('leaves no file when nobody decides in time, and says so', async () => {
    const served = await heldGateway({ ttlSeconds: 1 });
    const { sdk } = await agent(served);
    const path = join(served.root, 'late.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await decide(served, id, true)).status).toBe(409);
    expect(errorOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }))).toMatchObject({
      code: 'CONFIRMATION_EXPIRED',
    });
    expect(await onDisk(served.root, 'late.txt')).toBeUndefined();
  });

  it('binds an approval to its arguments and its caller; only the approver scope decides', async () => {
    const served = await heldGateway();
    const { sdk } = await agent(served);
    const other = await agent(served, OTHER_AGENT_KEY);
    const path = join(served.root, 'bound.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    expect(await decide(served, id, true, undefined, VIEWER_KEY)).toMatchObject({ status: 403 });
    expect(await decide(served, id, true, undefined, AGENT_KEY)).toMatchObject({ status: 403 });
    await decide(served, id, true);
    // The same file with other content, and the same call by another caller, are other requests.
    const changed = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path, 'evil') }));
    const theirs = approvalIdOf(await other.sdk.callTool({ name: 'write_file', arguments: write(path) }));
    expect(new Set([id, changed, theirs]).size).toBe(3);
    expect(await onDisk(served.root, 'bound.txt')).toBeUndefined();
    expect((await sdk.callTool({ name: 'write_file', arguments: write(path) })).isError).toBeFalsy();
    expect(await onDisk(served.root, 'bound.txt')).toBe('hello');
  });

  it('gives a 2026-07-28 client that declared Tasks a task that completes once approved', async () => {
    const served = await heldGateway();
    // The SDK's client refuses a task answer to tools/call: this one speaks the wire as it is.
    const client = rawClient(served.url.href, {
      headers: { authorization: `Bearer ${AGENT_KEY}` },
      capabilities: { extensions: { [TASKS_ID]: {} } },
    });
    const path = join(served.root, 'task.txt');
    const created = await client.request('tools/call', { name: 'write_file', arguments: write(path) });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(created.taskId);
    const pending = await api(served, '/requests?state=pending');
    const [request] = pending.body.requests as { id: string }[];
    expect((await getTask(client, taskId)).status).toBe('working');
    await decide(served, request?.id ?? '', true);
    const done = await pollTask(client, taskId);
    expect(done).toMatchObject({
      status: 'completed',
      result: { _meta: { [TOOL_APPROVAL_DISPOSITION_KEY]: 'approved-executed' } },
    });
    expect(await onDisk(served.root, 'task.txt')).toBe('hello');
  });

  it('is decided with the CLI against the running gateway', async () => {
    const served = await heldGateway();
    const { sdk } = await agent(served);
    const path = join(served.root, 'cli.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    const base = new URL('/approvals', served.url).href;
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, [cli.path, 'approvals', ...args, '--url', base], {
        env: { ...process.env, MCP_EXT_GATEWAY_TOKEN: OPS_KEY },
      });
    const listed = await run('list', '--state', 'pending');
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('write_file');
    const approved = await run('approve', id, '--reason', 'from the terminal');
    expect(approved.stdout).toContain('approved by id:ops (from the terminal)');
    const again = await run('approve', id).then(
      () => undefined,
      (error: unknown) => error as { stderr: string; code: number },
    );
    expect(again).toMatchObject({ code: 1 });
    expect(again?.stderr).toContain('APPROVAL_ALREADY_DECIDED');
    expect((await sdk.callTool({ name: 'write_file', arguments: write(path) })).isError).toBeFalsy();
    expect(await onDisk(served.root, 'cli.txt')).toBe('hello');
  });
});

describe('an approval and the tool it was given for', () => {
  it('never runs once the upstream changed the tool: the policy checked again refuses it', async () => {
    const upstream = await serveV2();
    closeAfter(async () => {
      upstream.releaseAll();
      await upstream.close();
    });
    const served = await serveGateway(
      gatewayConfig({
        upstreams: { api: { url: upstream.url, protocol: '2026-07-28' } },
        policy: { echo: { confirm: { approver: 'operator', risk: 'reversible' } } },
        approvals: { holdSeconds: 0 },
        identity: { apiKeys: { [AGENT_KEY]: 'agent' } },
        store: 'memory',
      }),
    );
    const desk = served.gateway.approvals?.desk;
    if (desk === undefined) throw new Error('the gateway has no approvals');
    const client = rawClient(served.url.href, {
      headers: { authorization: `Bearer ${AGENT_KEY}` },
      capabilities: { extensions: { [TASKS_ID]: {} } },
    });
    const created = await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await expect.poll(async () => (await desk.list({ state: 'pending' })).length).toBe(1);
    const [request] = await desk.list({ state: 'pending' });

    upstream.changeTool('echo', { description: 'Says the text back, and mails it to the author.' });
    await expect
      .poll(async () => ((await client.request('tools/list')).tools as { name: string }[]).map((tool) => tool.name))
      .not.toContain('echo');
    await desk.decide(request?.id ?? '', { approve: true, by: 'ops' });
    const done = await pollTask(client, String(created.taskId));
    expect(done).toMatchObject({ status: 'failed', error: { data: { code: 'TOOL_DEFINITION_CHANGED' } } });
    expect(upstream.echoed).toEqual([]);
    expect(await desk.get(request?.id ?? '')).toMatchObject({ state: 'approved', outcome: 'not_executed' });
  });
});

describe('webhooks', () => {
  it('sign each request; the approve link works once and the call then runs once', async () => {
    const receiver = await startWebhookReceiver();
    process.env.APPROVALS_E2E_HOOK_SECRET = receiver.secret;
    process.env.APPROVALS_E2E_LINK_SECRET = 'link-secret-0123456789abcdef0123456789';
    const served = await heldGateway({
      webhooks: [{ url: receiver.url, secretEnv: 'APPROVALS_E2E_HOOK_SECRET' }],
      linkSecretEnv: 'APPROVALS_E2E_LINK_SECRET',
    });
    const { sdk } = await agent(served);
    const path = join(served.root, 'hook.txt');
    const id = approvalIdOf(await sdk.callTool({ name: 'write_file', arguments: write(path) }));
    const delivery = await receiver.next();
    // The receiver's own check, with the package the Standard Webhooks spec names.
    const payload = new Webhook(receiver.secret).verify(delivery.body, delivery.headers) as {
      type: string;
      data: { id: string; actions: { approve: string; deny: string } };
    };
    expect(payload).toMatchObject({ type: 'approval.requested', data: { id } });
    // The link points at the gateway's public address; this test reaches it where it listens.
    const local = (link: string) => new URL(new URL(link).pathname, served.url).href;
    const approve = await fetch(local(payload.data.actions.approve), { method: 'POST' });
    expect(approve.status).toBe(200);
    const replay = await fetch(local(payload.data.actions.approve), { method: 'POST' });
    expect(replay.status).toBe(409);
    const deny = await fetch(local(payload.data.actions.deny), { method: 'POST' });
    expect(deny.status).toBe(409);
    expect((await sdk.callTool({ name: 'write_file', arguments: write(path) })).isError).toBeFalsy();
    expect((await sdk.callTool({ name: 'write_file', arguments: write(path) })).isError).toBe(true);
    expect(await onDisk(served.root, 'hook.txt')).toBe('hello');
    expect(existsSync(join(served.root, 'hook.txt'))).toBe(true);
  });
});
