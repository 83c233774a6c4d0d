/**
 * The official Python MCP SDK's client (`mcp` from PyPI, pinned in
 * `fixtures/python-client.txt`) works the tracker over Streamable HTTP,
 * directly and behind `@ext/gateway`, on each protocol era: the 2025-11-25
 * initialize handshake (`mode="legacy"`) and the 2026-07-28 per-request era
 * (`mode="2026-07-28"`). One Python process per target and era runs every
 * step (`fixtures/python/drive.py`) and prints what it got; what happened is
 * read from the tracker's store, not through the client.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@ext/core/kit';
import { listen, type Listening } from '@ext/core/sdk-v2/server';
import { ERRORS_ID, ERRORS_WIRE_VERSION, TOOL_FAILURE_KEY } from '@ext/errors';
import { createGateway, type Gateway } from '@ext/gateway';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { composeTracker } from '../server/compose.js';
import { TRACKER_TOOLS } from './test-support.js';
import { EXPORT_QUOTA } from '../tools/tool-limits.js';
import { createTracker, type Tracker } from '../domain/tracker.js';

const python = inject('pythonClient');
const missing = 'unavailable' in python ? python.unavailable : undefined;

const DRIVER = fileURLToPath(new URL('../../fixtures/python/drive.py', import.meta.url));

/** Each era, and how the Python client is told to speak it. */
const ERAS = [
  // The question comes as an elicitation/create request: the callback sees its JSON-RPC id.
  { protocol: '2025-11-25', mode: 'legacy', askedAs: expect.any(Number) as unknown },
  // The question comes in an input_required result, which call_tool answers through the callback and
  // sends again: the callback sees the question's key in that result.
  { protocol: '2026-07-28', mode: '2026-07-28', askedAs: 'confirm' },
] as const;

const GATEWAY_KEY = 'python-client-key-0001';
/** Calls of list_tickets the gateway admits per caller and hour. */
const GATEWAY_QUOTA = 2;

interface Step {
  readonly name: string;
  readonly kind: 'list_tools' | 'call';
  readonly tool?: string;
  readonly arguments?: Record<string, unknown>;
  /** How the person answers a confirmation question during the step; unset: no, if asked at all. */
  readonly answer?: 'accept';
  readonly times?: number;
}

interface CallResult {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: readonly { type: string; text?: string }[];
  readonly _meta?: Record<string, unknown>;
}

/** What the driver printed for a step. */
interface StepRecord {
  readonly step: string;
  readonly protocolVersion?: string;
  readonly tools?: readonly string[];
  readonly result?: CallResult;
  readonly isErrors?: readonly boolean[];
  readonly asked?: readonly {
    message: string;
    requestId: unknown;
    requestedSchema?: { properties?: Record<string, unknown> };
  }[];
  readonly exception?: { type: string; message: string; code?: number };
}

/** Runs the driver once with `plan` on stdin; its records by step name. */
function drive(interpreter: string, plan: Record<string, unknown>): Promise<Map<string, StepRecord>> {
  return new Promise((resolve, reject) => {
    const child = spawn(interpreter, [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`the Python driver exited with ${String(code)}:\n${stderr}`));
        return;
      }
      const records = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as StepRecord);
      resolve(new Map(records.map((record) => [record.step, record])));
    });
    child.stdin.end(JSON.stringify(plan));
  });
}

/** The record of `name`, which must have a result (the step did not raise). */
function resultOf(records: Map<string, StepRecord>, name: string): CallResult {
  const record = records.get(name);
  expect(record?.exception, `${name} raised`).toBeUndefined();
  expect(record?.result, `${name} has no result`).toBeDefined();
  return record!.result!;
}

interface Target {
  readonly url: URL;
  readonly token: string;
  readonly tracker: Tracker;
  close(): Promise<void>;
}

/** The tracker on its own, with the draft ToolFailure key on every failure. */
async function trackerTarget(): Promise<Target & { readonly running: RunningHttpServer }> {
  const running = await startHttpServer({
    port: 0,
    logger: silentLogger,
    composed: composeTracker({ logger: silentLogger, toolFailure: true }),
  });
  return {
    running,
    url: running.url,
    token: running.tokens!.alice,
    tracker: createTracker(running.store),
    close: () => running.close(),
  };
}

/** The tracker behind the gateway, which asks before close_ticket and meters list_tickets. */
async function gatewayTarget(): Promise<Target> {
  const upstream = await trackerTarget();
  const gateway: Gateway = await createGateway(
    {
      upstreams: {
        tracker: {
          url: upstream.url.href,
          protocol: '2026-07-28',
          headers: { authorization: `Bearer ${upstream.token}` },
        },
      },
      policy: {
        close_ticket: { confirm: { message: 'Close ticket {id}?', risk: 'reversible' } },
        list_tickets: { cost: { quota: { limit: GATEWAY_QUOTA, windowSeconds: 3600 } } },
      },
      store: 'memory',
      identity: { apiKeys: { [GATEWAY_KEY]: 'python' } },
    },
    { logger: silentLogger },
  );
  const served: Listening = await listen(gateway.http, { port: 0 });
  return {
    url: served.url,
    token: GATEWAY_KEY,
    tracker: upstream.tracker,
    async close() {
      await served.close();
      await gateway.close();
      await upstream.close();
    },
  };
}

/** The plan every target gets: the gated tool, the metered one and its limit differ. */
function planFor(
  target: Target,
  mode: string,
  ids: { readonly approved: string; readonly declined: string },
  gated: string,
  metered: { readonly tool: string; readonly limit: number },
): Record<string, unknown> {
  const steps: Step[] = [
    { name: 'tools', kind: 'list_tools' },
    { name: 'ungated', kind: 'call', tool: 'create_ticket', arguments: { title: 'Filed from Python' } },
    { name: 'approved', kind: 'call', tool: gated, arguments: { id: ids.approved }, answer: 'accept' },
    { name: 'declined', kind: 'call', tool: gated, arguments: { id: ids.declined } },
    { name: 'quota', kind: 'call', tool: metered.tool, arguments: {}, times: metered.limit + 1 },
    { name: 'failure', kind: 'call', tool: 'get_ticket', arguments: { id: 'T-9999' } },
  ];
  return {
    url: target.url.href,
    token: target.token,
    mode,
    // Our structured error goes only to clients that advertise the extension; the draft key goes to every client.
    extensions: { [ERRORS_ID]: { version: ERRORS_WIRE_VERSION } },
    steps,
  };
}

const errorOf = (result: CallResult) => result._meta?.[ERRORS_ID] as Record<string, unknown> | undefined;
const toolFailureOf = (result: CallResult) => result._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown> | undefined;

describe.skipIf(missing !== undefined)(
  `the official Python SDK client${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describe.each(ERAS)('on $protocol', ({ protocol, mode, askedAs }) => {
      describe('the tracker over Streamable HTTP', () => {
        let target: Target;
        let records: Map<string, StepRecord>;
        let ids: { approved: string; declined: string };

        beforeAll(async () => {
          target = await trackerTarget();
          ids = {
            approved: (await target.tracker.create({ title: 'Delete me' })).id,
            declined: (await target.tracker.create({ title: 'Keep me' })).id,
          };
          const plan = planFor(target, mode, ids, 'delete_ticket', { tool: 'export_report', limit: EXPORT_QUOTA });
          records = await drive((python as { python: string }).python, plan);
        });

        afterAll(async () => {
          await target.close();
        });

        it('connects on the era, lists the tools and runs an ungated call', async () => {
          expect(records.get('connected')?.protocolVersion).toBe(protocol);
          expect(records.get('tools')?.tools).toEqual(TRACKER_TOOLS);
          const created = resultOf(records, 'ungated');
          expect(created.isError).toBe(false);
          const ticket = created.structuredContent?.ticket as { id: string; title: string };
          expect(ticket.title).toBe('Filed from Python');
          expect((await target.tracker.get(ticket.id)).title).toBe('Filed from Python');
        });

        it('asks the person in-band before delete_ticket: approved, the ticket is deleted once', async () => {
          const record = records.get('approved')!;
          expect(record.asked).toHaveLength(1);
          expect(record.asked![0]!.message).toContain(`Delete ticket ${ids.approved} for good?`);
          expect(record.asked![0]!.requestId).toEqual(askedAs);
          expect(Object.keys(record.asked![0]!.requestedSchema?.properties ?? {})).toEqual(['confirm']);
          const deleted = resultOf(records, 'approved');
          expect(deleted.isError).toBe(false);
          await expect(target.tracker.get(ids.approved)).rejects.toThrow(/does not exist/);
        });

        it('declined, nothing is deleted and the client reads CONFIRMATION_DECLINED', async () => {
          expect(records.get('declined')?.asked).toHaveLength(1);
          const refused = resultOf(records, 'declined');
          expect(refused.isError).toBe(true);
          expect(errorOf(refused)).toMatchObject({ code: 'CONFIRMATION_DECLINED', category: 'permanent' });
          expect((await target.tracker.get(ids.declined)).title).toBe('Keep me');
        });

        it('refuses the export over its quota, with the category, the retry hint and the draft key', () => {
          const record = records.get('quota')!;
          expect(record.isErrors).toEqual([...Array<boolean>(EXPORT_QUOTA).fill(false), true]);
          const refused = resultOf(records, 'quota');
          const error = errorOf(refused);
          expect(error).toMatchObject({
            code: 'QUOTA_EXHAUSTED',
            category: 'rate_limited',
            details: { tool: 'export_report', limit: EXPORT_QUOTA, used: EXPORT_QUOTA },
          });
          expect(error?.retry_after_seconds).toBeGreaterThan(0);
          expect(toolFailureOf(refused)).toMatchObject({
            class: 'reliability',
            code: 'quota_exhausted',
            retryable: true,
          });
          expect(toolFailureOf(refused)?.retryNotBefore).toBeGreaterThan(Date.now());
        });

        it('reads a failed call as the draft ToolFailure and as our structured error', () => {
          const failed = resultOf(records, 'failure');
          expect(failed.isError).toBe(true);
          expect(errorOf(failed)).toMatchObject({ code: 'RESOURCE_NOT_FOUND', category: 'permanent' });
          expect(toolFailureOf(failed)).toMatchObject({
            class: 'capability',
            code: 'resource_not_found',
            agentGuidance: 'Call list_tickets to see the ids of existing tickets.',
          });
          expect(toolFailureOf(failed)?.correlationId).toMatch(/^[0-9a-f]{16}$/);
        });
      });

      describe('the tracker behind @ext/gateway', () => {
        let target: Target;
        let records: Map<string, StepRecord>;
        let ids: { approved: string; declined: string };

        beforeAll(async () => {
          target = await gatewayTarget();
          ids = {
            approved: (await target.tracker.create({ title: 'Close me' })).id,
            declined: (await target.tracker.create({ title: 'Leave me open' })).id,
          };
          const plan = planFor(target, mode, ids, 'close_ticket', { tool: 'list_tickets', limit: GATEWAY_QUOTA });
          records = await drive((python as { python: string }).python, plan);
        });

        afterAll(async () => {
          await target.close();
        });

        it('connects on the era, lists the tracker tools and runs an ungated call upstream', async () => {
          expect(records.get('connected')?.protocolVersion).toBe(protocol);
          expect(records.get('tools')?.tools).toEqual(TRACKER_TOOLS);
          const created = resultOf(records, 'ungated');
          expect(created.isError).toBe(false);
          const ticket = created.structuredContent?.ticket as { id: string };
          expect((await target.tracker.get(ticket.id)).title).toBe('Filed from Python');
        });

        it("asks the person in-band before close_ticket, as the gateway's policy says: approved, closed once", async () => {
          const record = records.get('approved')!;
          expect(record.asked).toHaveLength(1);
          expect(record.asked![0]!.message).toContain(`Close ticket ${ids.approved}?`);
          expect(record.asked![0]!.requestId).toEqual(askedAs);
          expect(resultOf(records, 'approved').isError).toBe(false);
          expect((await target.tracker.get(ids.approved)).status).toBe('closed');
        });

        it('declined, the ticket stays open and the client reads CONFIRMATION_DECLINED', async () => {
          expect(records.get('declined')?.asked).toHaveLength(1);
          const refused = resultOf(records, 'declined');
          expect(refused.isError).toBe(true);
          expect(errorOf(refused)).toMatchObject({ code: 'CONFIRMATION_DECLINED', category: 'permanent' });
          expect((await target.tracker.get(ids.declined)).status).toBe('open');
        });

        it("refuses list_tickets over the gateway's quota, with the category, the retry hint and the draft key", () => {
          expect(records.get('quota')?.isErrors).toEqual([...Array<boolean>(GATEWAY_QUOTA).fill(false), true]);
          const refused = resultOf(records, 'quota');
          const error = errorOf(refused);
          expect(error).toMatchObject({
            code: 'QUOTA_EXHAUSTED',
            category: 'rate_limited',
            details: { tool: 'list_tickets', limit: GATEWAY_QUOTA, used: GATEWAY_QUOTA },
          });
          expect(error?.retry_after_seconds).toBeGreaterThan(0);
          // The gateway's own refusals carry the draft key too (gateway GW-54).
          expect(toolFailureOf(refused)).toMatchObject({
            class: 'reliability',
            code: 'quota_exhausted',
            retryable: true,
          });
          expect(toolFailureOf(refused)?.retryNotBefore).toBeGreaterThan(Date.now());
        });

        it("passes the tracker's draft ToolFailure through to the client", () => {
          const failed = resultOf(records, 'failure');
          expect(failed.isError).toBe(true);
          expect(toolFailureOf(failed)).toMatchObject({ class: 'capability', code: 'resource_not_found' });
          expect(toolFailureOf(failed)?.correlationId).toMatch(/^[0-9a-f]{16}$/);
        });
      });
    });
  },
);
