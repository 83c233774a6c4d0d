/**
 * The official client-side Tasks package, `@modelcontextprotocol/ext-tasks`,
 * against the gateway's approval tasks (SEP-2848 over Tasks), end to end:
 * the unmodified filesystem server behind the gateway, `write_file` held for
 * an operator, a 2026-07-28 SDK client adapted by the package's own
 * `createTaskSessionFromClient`, unadapted. The package's session creates the
 * task, polls it, settles it, cancels it and resumes it from a serialized
 * reference in a new session; the operator decides on the approvals API;
 * what happened is read from the disk. The last `describe` reads the wire
 * with the package's own schemas. The gateway's tasks never ask the client
 * for input (an operator decides), so there is no `input_required` here.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TOOL_APPROVAL_DISPOSITION_KEY } from '@ext/confirmation/approvals';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TasksExtensionCapabilityV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  DispatchError,
  TaskCancelledError,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type JsonRpcResponse,
  type RawClientDispatch,
  type SerializedTaskReference,
  type TaskEnabledSession,
  type TaskExecutionEvent,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OPS_KEY = 'ops-key-0123456789abcdef';
const TASKS = 'io.modelcontextprotocol/tasks';
const PROTOCOL_VERSION = '2026-07-28';
/** The stable identity the package scopes serialized task references to. */
const ENDPOINT_ID = 'gateway-e2e';

interface HeldGateway extends ServedGateway {
  readonly root: string;
}

/** The gateway of `approvals.test.ts`: `write_file` waits for an operator. */
async function heldGateway(): Promise<HeldGateway> {
  const root = await tempDir('ext-tasks');
  const config = gatewayConfig({
    upstreams: { files: filesystemUpstream(root) },
    policy: { write_file: { confirm: { approver: 'operator', message: 'Write {path}?' } } },
    approvals: { holdSeconds: 0 },
    identity: {
      apiKeys: { [AGENT_KEY]: 'agent', [OPS_KEY]: { principal: 'ops', scopes: ['approvals:decide'] } },
    },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), root };
}

async function approvalsApi(served: HeldGateway, path: string, init: RequestInit = {}) {
  const response = await fetch(new URL(`/approvals/api${path}`, served.url), {
    ...init,
    headers: { authorization: `Bearer ${OPS_KEY}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The operator's decision on the approvals API. */
async function decide(served: HeldGateway, id: string, approve: boolean, reason?: string) {
  const body = JSON.stringify({ approve, ...(reason === undefined ? {} : { reason }) });
  return approvalsApi(served, `/requests/${id}/decision`, { method: 'POST', body });
}

/** The id of the pending `write_file` request, once the task has opened it. */
async function pendingRequest(served: HeldGateway): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { body } = await approvalsApi(served, '/requests?state=pending');
    const requests = body.requests as { id: string; tool: string }[];
    const request = requests.find((entry) => entry.tool === 'write_file');
    if (request !== undefined) return request.id;
    await sleep(20);
  }
  throw new Error('no pending approval request for write_file');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function onDisk(root: string, file: string): Promise<string | undefined> {
  return readFile(join(root, file), 'utf8').catch(() => undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// The host side the package leaves to its user: a raw JSON-RPC path for the
// task wire shapes the SDK client refuses, and the 2026-07-28 request framing.

const FRAMING: V2RequestFraming = {
  protocolVersion: PROTOCOL_VERSION,
  clientInfo: { name: 'ext-tasks-e2e', version: '0.0.0' },
  clientCapabilities: { extensions: { [TASKS]: {} } },
};

interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: JsonValue;
  readonly error?: { code: number; message: string; data?: JsonValue };
}

/** The answer to request `id`: the body itself, or its event among those of an SSE stream. */
async function answerOf(response: Response, id: number): Promise<RpcAnswer> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) {
    const events = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice('data:'.length)) as RpcAnswer);
    const answer = events.find((event) => event.id === id);
    if (answer === undefined) throw new DispatchError(`no answer to request ${id} in the event stream`);
    return answer;
  }
  if (!type.includes('application/json')) throw new DispatchError(`HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as RpcAnswer;
}

let nextId = 1;

/**
 * `rawDispatch` for the package: the framed request POSTed to the gateway with
 * the routing headers of the 2026-07-28 Streamable HTTP transport (`Mcp-Name`
 * is the tool's name or the task's id; the package also passes the latter in
 * its dispatch context) and the caller's key.
 */
function rawDispatchTo(url: URL, key: string): RawClientDispatch {
  return async (request, options) => {
    if (!isRecord(request) || typeof request.method !== 'string') throw new DispatchError('not a request');
    const params = isRecord(request.params) ? request.params : {};
    const name = typeof params.name === 'string' ? params.name : params.taskId;
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': request.method,
      authorization: `Bearer ${key}`,
    });
    if (typeof name === 'string') headers.set('mcp-name', name);
    for (const [header, value] of Object.entries(options?.context?.headers ?? {})) headers.set(header, value);
    const id = nextId++;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, ...request }),
      ...(options?.signal === undefined ? {} : { signal: options.signal }),
    });
    const answer = await answerOf(response, id);
    if (answer.error !== undefined) return { kind: 'error', error: answer.error };
    if (answer.result === undefined) throw new DispatchError(`HTTP ${response.status}: no result`);
    return { kind: 'result', result: answer.result };
  };
}

// ---------------------------------------------------------------------------

interface TaskSession {
  readonly session: TaskEnabledSession;
  readonly sdk: Client;
}

/** An SDK v2 client on 2026-07-28, adapted by the package into a task session; closed after the test. */
async function taskSession(served: HeldGateway): Promise<TaskSession> {
  const { sdk } = await connectClient(served.url, {
    era: 'modern',
    headers: { authorization: `Bearer ${AGENT_KEY}` },
  });
  const session = createTaskSessionFromClient(sdk, {
    endpointId: ENDPOINT_ID,
    rawDispatch: rawDispatchTo(served.url, AGENT_KEY),
    v2RequestFraming: FRAMING,
  });
  closeAfter(() => session.close());
  return { session, sdk };
}

function write(root: string, file: string, content = 'hello') {
  return { path: join(root, file), content };
}

/** Calls `write_file` and expects the package to hand back a task-backed execution. */
async function callAsTask(session: TaskEnabledSession, root: string, file: string) {
  const execution = await session.callTool('write_file', write(root, file));
  if (execution.kind !== 'task') throw new Error(`expected a task, got an ${execution.kind} execution`);
  return execution;
}

const WAITING =
  /^Waiting for an approver to decide on "write_file" \(destructive\); approval request (\S+) expires at /;

describe('@modelcontextprotocol/ext-tasks against the approval tasks of the gateway', () => {
  it('creates the task, sees it wait for an approver, and settles it with the approved result', async () => {
    const served = await heldGateway();
    const { session } = await taskSession(served);
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true });
    const execution = await callAsTask(session, served.root, 'approved.txt');
    expect(execution.handle.operation).toBe('tools/call');
    const events: TaskExecutionEvent<unknown>[] = [];
    const settling = execution.settle({ onEvent: (event) => void events.push(event) });

    const id = await pendingRequest(served);
    const waiting = await session.task(execution.handle.taskId).snapshot();
    expect(waiting).toMatchObject({ taskId: execution.handle.taskId, status: 'working' });
    expect(waiting.statusMessage).toMatch(WAITING);
    expect(WAITING.exec(waiting.statusMessage ?? '')?.[1]).toBe(id);
    expect(await onDisk(served.root, 'approved.txt')).toBeUndefined();

    expect((await decide(served, id, true)).status).toBe(200);
    const { outcome, lastTask } = await settling;
    expect(outcome.status).toBe('completed');
    expect(lastTask?.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome);
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('approved-executed');
    expect(events[0]).toMatchObject({ type: 'task', task: { status: 'working' } });
    expect(events.at(-1)).toMatchObject({ type: 'outcome', outcome: { status: 'completed' } });
    expect(await onDisk(served.root, 'approved.txt')).toBe('hello');
  });

  it('settles a denied call as a completed tool error, and writes nothing', async () => {
    const served = await heldGateway();
    const { session } = await taskSession(served);
    const execution = await callAsTask(session, served.root, 'denied.txt');
    const id = await pendingRequest(served);
    expect((await decide(served, id, false, 'not this file')).status).toBe(200);

    const { outcome } = await execution.settle();
    // A tool error is a completed task (SEP-2663: `failed` is for JSON-RPC errors only).
    expect(outcome.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome);
    expect(result.isError).toBe(true);
    expect(result._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('denied-not-executed');
    expect(result._meta?.['io.github.mcp-ext/confirmation']).toMatchObject({
      status: 'denied',
      approval_id: id,
      error: { code: 'CONFIRMATION_DENIED' },
    });
    expect(JSON.stringify(result.content)).toContain('not this file');
    expect(await onDisk(served.root, 'denied.txt')).toBeUndefined();
  });

  it('cancels a waiting task; a later approval runs nothing', async () => {
    const served = await heldGateway();
    const { session } = await taskSession(served);
    const execution = await callAsTask(session, served.root, 'cancelled.txt');
    const id = await pendingRequest(served);

    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect(() => resultFromTaskOutcome(outcome)).toThrow(TaskCancelledError);
    const controller = session.task(execution.handle.taskId);
    expect((await controller.snapshot()).status).toBe('cancelled');

    // The cancelled task withdrew its request: no later decision stands for it.
    await expect
      .poll(async () => (await approvalsApi(served, `/requests/${id}`)).body.request)
      .toMatchObject({
        state: 'cancelled',
        outcome: 'not_executed',
      });
    const late = await decide(served, id, true);
    expect(late.status).toBe(409);
    await sleep(500);
    expect(await onDisk(served.root, 'cancelled.txt')).toBeUndefined();
    const { body } = await approvalsApi(served, `/requests/${id}`);
    expect(body.request).not.toHaveProperty('claimed_at');
    expect((await controller.snapshot()).status).toBe('cancelled');
    expect((await controller.result()).status).toBe('cancelled');
  });

  it('resumes a task from its serialized reference in a new session, and settles it there', async () => {
    const served = await heldGateway();
    const first = await taskSession(served);
    const execution = await callAsTask(first.session, served.root, 'resumed.txt');
    const id = await pendingRequest(served);
    let stored = '';
    await execution.handoff((reference) => {
      stored = JSON.stringify(reference);
    });
    await execution.result();
    await first.session.close();
    await first.sdk.close();

    const reference = JSON.parse(stored) as SerializedTaskReference;
    expect(reference).toEqual({
      endpointId: ENDPOINT_ID,
      generation: 'v2',
      taskId: execution.handle.taskId,
      originalOperation: 'tools/call',
    });
    const { session } = await taskSession(served);
    const resumed = await session.resumeTask(reference);
    expect(resumed).toMatchObject({ kind: 'task', handle: { taskId: reference.taskId } });
    // Handing off did not cancel it: it still waits on the same request.
    const waiting = await session.task(reference.taskId).snapshot();
    expect(waiting.status).toBe('working');
    expect(WAITING.exec(waiting.statusMessage ?? '')?.[1]).toBe(id);

    expect((await decide(served, id, true)).status).toBe(200);
    const { outcome } = await resumed.settle();
    const result = resultFromTaskOutcome(outcome);
    expect(result._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('approved-executed');
    expect(await onDisk(served.root, 'resumed.txt')).toBe('hello');
  });
});

/** A 2026-07-28 request as the package frames it, sent on the package's dispatch path: its result or error as answered. */
async function wire(served: HeldGateway, method: string, params: Record<string, JsonValue>): Promise<JsonRpcResponse> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': FRAMING.protocolVersion,
    'io.modelcontextprotocol/clientInfo': FRAMING.clientInfo,
    'io.modelcontextprotocol/clientCapabilities': FRAMING.clientCapabilities,
  } as JsonValue;
  return rawDispatchTo(served.url, AGENT_KEY)({ method, params: { ...params, _meta } });
}

function resultOf(response: JsonRpcResponse): JsonValue {
  if (response.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

describe("the gateway's Tasks wire, read with the package's own schemas", () => {
  it('advertises the empty object the extension defines, so the package alone sees a Tasks server', async () => {
    const served = await heldGateway();
    const { sdk, session } = await taskSession(served);
    const extensions = sdk.getServerCapabilities()?.extensions ?? {};
    expect(extensions[TASKS]).toEqual({});
    expect(TasksExtensionCapabilityV2Schema.safeParse(extensions[TASKS]).success).toBe(true);
    // Our own identifier keeps its versioned settings.
    expect(extensions['io.github.mcp-ext/tasks']).toEqual({ version: '1.0' });
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true });
  });

  it('answers tools/call, tasks/get and tasks/cancel as the schemas say, a completed result included', async () => {
    const served = await heldGateway();
    const created = resultOf(
      await wire(served, 'tools/call', { name: 'write_file', arguments: write(served.root, 'wire.txt') }),
    );
    expect(CreateTaskResultV2Schema.safeParse(created).success).toBe(true);
    const taskId = (created as { taskId: string }).taskId;
    const working = resultOf(await wire(served, 'tasks/get', { taskId }));
    expect(GetTaskResultV2Schema.parse(working)).toMatchObject({ resultType: 'complete', status: 'working' });

    expect((await decide(served, await pendingRequest(served), true)).status).toBe(200);
    let completed = working;
    for (let attempt = 0; (completed as { status?: unknown }).status === 'working' && attempt < 250; attempt++)
      completed = await sleep(20).then(async () => resultOf(await wire(served, 'tasks/get', { taskId })));
    const parsed = GetTaskResultV2Schema.parse(completed);
    expect(parsed.status).toBe('completed');
    const result = parsed.status === 'completed' ? parsed.result : undefined;
    // The tool's CallToolResult as a 2026-07-28 server answers it: with its resultType.
    expect(CallToolResultV2Schema.parse(result)).toMatchObject({ resultType: 'complete' });
    expect(await onDisk(served.root, 'wire.txt')).toBe('hello');

    const second = resultOf(
      await wire(served, 'tools/call', { name: 'write_file', arguments: write(served.root, 'never.txt') }),
    );
    const secondId = (second as { taskId: string }).taskId;
    const ack = resultOf(await wire(served, 'tasks/cancel', { taskId: secondId }));
    expect(CancelTaskResultV2Schema.parse(ack)).toMatchObject({ resultType: 'complete' });
    const cancelled = GetTaskResultV2Schema.parse(resultOf(await wire(served, 'tasks/get', { taskId: secondId })));
    expect(cancelled.status).toBe('cancelled');
    // An unknown task: -32602, as the extension requires for tasks/get.
    const unknown = await wire(served, 'tasks/get', { taskId: 'no-such-task' });
    expect(unknown).toMatchObject({ kind: 'error', error: { code: -32602 } });
    expect(await onDisk(served.root, 'never.txt')).toBeUndefined();
  });

  it("settles the package's own session with the completed result, through the same calls", async () => {
    const served = await heldGateway();
    const { session } = await taskSession(served);
    const execution = await callAsTask(session, served.root, 'settled.txt');
    expect((await decide(served, await pendingRequest(served), true)).status).toBe(200);
    const controller = session.task(execution.handle.taskId);
    const outcome = await controller.result();
    expect(outcome.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome);
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[TOOL_APPROVAL_DISPOSITION_KEY]).toBe('approved-executed');
    expect((await controller.snapshot()).status).toBe('completed');
    expect(await onDisk(served.root, 'settled.txt')).toBe('hello');
    await execution.close();
  });
});
