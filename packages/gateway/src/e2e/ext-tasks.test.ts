/**
 * The official client-side Tasks package, `@modelcontextprotocol/ext-tasks`,
 * against the gateway's approval tasks (SEP-2848 over Tasks), end to end:
 * the unmodified filesystem server behind the gateway, `write_file` held for
 * an operator, a 2026-07-28 SDK client adapted by the package's own
 * `createTaskSessionFromClient`. The package's session creates the task,
 * polls it, settles it, cancels it and resumes it from a serialized
 * reference in a new session; the operator decides on the approvals API;
 * what happened is read from the disk.
 *
 * The gateway deviates from the Tasks extension on two points the package
 * checks (the last `describe` pins both): the `Adaptations` below
 * compensate, on the client's side of this test, for exactly those two and
 * nothing else. When a pinning test fails, the server was fixed: drop the
 * matching adaptation.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TOOL_APPROVAL_DISPOSITION_KEY } from '@ext/confirmation/approvals';
import { ProtocolDecodeError, type JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { CallToolResultV2Schema, TasksExtensionCapabilityV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  DispatchError,
  TaskCancelledError,
  TaskFailedError,
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
// Compensation for the gateway's two deviations from the Tasks extension,
// each pinned by a test in the last `describe`.

interface Adaptations {
  /**
   * The gateway advertises `io.modelcontextprotocol/tasks` as `{ version: "1.0" }`;
   * the extension's `TasksExtensionCapability` is `Record<string, never>` (the
   * empty object). The package requires exactly that and otherwise treats the
   * server as Tasks-unaware. Adapted: the client reports the empty object.
   */
  readonly capability: boolean;
  /**
   * A completed task's `result` is the tool's `CallToolResult` without
   * `resultType`; on 2026-07-28 `Result.resultType` is required ("Servers
   * implementing this protocol version MUST include this field") and the
   * package's `CallToolResultV2Schema` requires `"complete"`. Adapted: a
   * `tasks/get` answer's missing `result.resultType` is set to `"complete"`.
   */
  readonly resultType: boolean;
}

const ADAPTED: Adaptations = { capability: true, resultType: true };

/** The client's view of the server's capabilities with the Tasks entry as the extension defines it. */
function specCapabilities(sdk: Client): void {
  const advertised = sdk.getServerCapabilities.bind(sdk);
  sdk.getServerCapabilities = () => {
    const capabilities = advertised();
    if (capabilities?.extensions?.[TASKS] === undefined) return capabilities;
    return { ...capabilities, extensions: { ...capabilities.extensions, [TASKS]: {} } };
  };
}

/** A completed task's `result` with the `resultType` a 2026-07-28 `CallToolResult` carries. */
function withResultType(request: JsonValue, response: JsonRpcResponse): JsonRpcResponse {
  if (!isRecord(request) || request.method !== 'tasks/get' || response.kind !== 'result') return response;
  const task = response.result;
  if (!isRecord(task) || task.status !== 'completed' || !isRecord(task.result) || 'resultType' in task.result)
    return response;
  return { kind: 'result', result: { ...task, result: { ...task.result, resultType: 'complete' } } };
}

function specAdapter(dispatch: RawClientDispatch, adapt: Adaptations): RawClientDispatch {
  if (!adapt.resultType) return dispatch;
  return async (request, options) => withResultType(request, await dispatch(request, options));
}

// ---------------------------------------------------------------------------

interface TaskSession {
  readonly session: TaskEnabledSession;
  readonly sdk: Client;
}

/** An SDK v2 client on 2026-07-28, adapted by the package into a task session; closed after the test. */
async function taskSession(served: HeldGateway, adapt: Adaptations = ADAPTED): Promise<TaskSession> {
  const { sdk } = await connectClient(served.url, {
    era: 'modern',
    headers: { authorization: `Bearer ${AGENT_KEY}` },
  });
  if (adapt.capability) specCapabilities(sdk);
  const session = createTaskSessionFromClient(sdk, {
    endpointId: ENDPOINT_ID,
    rawDispatch: specAdapter(rawDispatchTo(served.url, AGENT_KEY), adapt),
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

describe('where the gateway deviates from the Tasks extension (adapted above; a failure here means it was fixed)', () => {
  it('advertises the Tasks capability with a `version`, so the package alone sees no Tasks and gets no task', async () => {
    const served = await heldGateway();
    const { sdk, session } = await taskSession(served, { capability: false, resultType: false });
    const advertised = sdk.getServerCapabilities()?.extensions?.[TASKS];
    expect(advertised).toEqual({ version: '1.0' });
    expect(TasksExtensionCapabilityV2Schema.safeParse(advertised).success).toBe(false);
    expect(session.capabilities).toMatchObject({ execution: false, cancellation: false });
    // The package then calls through the SDK client, which declares no Tasks: the call is held, unexecuted.
    const execution = await session.callTool('write_file', write(served.root, 'plain.txt'));
    expect(execution.kind).toBe('immediate');
    const result = resultFromTaskOutcome((await execution.settle()).outcome);
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result.content)).toContain('waits for an approver');
    expect(await onDisk(served.root, 'plain.txt')).toBeUndefined();
  });

  it("completes a task with a `result` lacking `resultType`, which the package's settlement refuses", async () => {
    const served = await heldGateway();
    const { session } = await taskSession(served, { capability: true, resultType: false });
    const execution = await callAsTask(session, served.root, 'unparsed.txt');
    expect((await decide(served, await pendingRequest(served), true)).status).toBe(200);
    const controller = session.task(execution.handle.taskId);
    let task = await controller.snapshot();
    for (let attempt = 0; task.status === 'working' && attempt < 100; attempt++)
      task = await sleep(20).then(() => controller.snapshot());
    expect(task.status).toBe('completed');
    const wireResult = task.raw.result;
    expect(isRecord(wireResult) && 'resultType' in wireResult).toBe(false);
    // That, and nothing else, is what the package's schema refuses.
    expect(CallToolResultV2Schema.safeParse(wireResult).success).toBe(false);
    expect(CallToolResultV2Schema.safeParse({ ...(wireResult as object), resultType: 'complete' }).success).toBe(true);
    // The call did run: the package reports a failure for a task the server completed.
    expect(await onDisk(served.root, 'unparsed.txt')).toBe('hello');
    const outcome = await controller.result();
    expect(outcome.status).toBe('failed');
    const error = outcome.status === 'failed' ? outcome.error : undefined;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error?.cause).toBeInstanceOf(ProtocolDecodeError);
    await execution.close();
  });
});
