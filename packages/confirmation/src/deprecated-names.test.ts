import { MemoryStore, type ExtendedServer, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { callManyWithConfirmation, callWithConfirmation, confirmationClient, requestGrant } from './client.js';
import { CONFIRMATION_ID } from './index.js';
import { confirmationServer, readConfirmationAudit } from './server.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).
/* eslint-disable @typescript-eslint/no-deprecated -- this file exercises the deprecated spellings on purpose */

const open: TestPair[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

function setup(server: ExtendedServer): void {
  const done = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
  server.registerTool(
    'delete_repo',
    {
      inputSchema: z.object({ repo: z.string() }),
      _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Delete {repo}?' } },
    },
    (args) => done(`deleted ${args.repo}`),
  );
  server.registerTool(
    'archive_repo',
    {
      inputSchema: z.object({ repo: z.string() }),
      _meta: { [CONFIRMATION_ID]: { requires_confirmation: true, risk_level: 'reversible' } },
    },
    (args) => done(`archived ${args.repo}`),
  );
}

async function pair(store = new MemoryStore()): Promise<TestPair> {
  const created = await createTestPair({
    line: 'v1',
    serverExtensions: [errorsServer(), confirmationServer({ grants: { maxCalls: 5, maxDurationSeconds: 60 } })],
    clientExtensions: [errorsClient(), confirmationClient()],
    setup,
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
  });
  open.push(created);
  return created;
}

/** How often each deprecated name was warned about. */
function warnings(): () => Record<string, number> {
  const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  return () => {
    const counts: Record<string, number> = {};
    for (const [message] of spy.mock.calls) {
      const name = /"(\w+)" is deprecated/.exec(String(message))?.[1];
      if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  };
}

describe('deprecated snake_case spellings (0.1)', () => {
  it('ConfirmCallback requests still answer risk_level, expires_at, max_calls and duration_seconds, warning once each', async () => {
    const counted = warnings();
    const { client } = await pair();
    const seen: unknown[] = [];
    for (const repo of ['a', 'b']) {
      const result = await callWithConfirmation(
        client,
        'delete_repo',
        { repo },
        {
          confirm: (request) => {
            if (request.kind === 'call') seen.push(request.risk_level, typeof request.expires_at);
            return Promise.resolve(true);
          },
        },
      );
      expect(result.isError).toBeFalsy();
    }
    await callManyWithConfirmation(client, [{ name: 'archive_repo', arguments: { repo: 'c' } }], {
      confirm: (request) => {
        if (request.kind === 'batch') seen.push(request.risk_level);
        return Promise.resolve(true);
      },
    });
    await requestGrant(client, 'archive_repo', {
      maxCalls: 2,
      durationSeconds: 30,
      confirm: (request) => {
        if (request.kind === 'grant') seen.push(request.max_calls, request.duration_seconds);
        return Promise.resolve(true);
      },
    });
    expect(seen).toEqual(['destructive', 'string', 'destructive', 'string', 'reversible', 2, 30]);
    expect(counted()).toEqual({ risk_level: 1, expires_at: 1, max_calls: 1, duration_seconds: 1 });
  });

  it('readConfirmationAudit entries still answer risk_level and batch_id, warning once each', async () => {
    const counted = warnings();
    const store = new MemoryStore();
    const { client } = await pair(store);
    await callManyWithConfirmation(
      client,
      [
        { name: 'archive_repo', arguments: { repo: 'a' } },
        { name: 'archive_repo', arguments: { repo: 'b' } },
      ],
      { confirm: () => Promise.resolve(true) },
    );
    const entries = (await readConfirmationAudit(store)).map((item) => item.entry);
    const issued = entries.filter((entry) => entry.event === 'token_issued');
    const approved = entries.find((entry) => entry.event === 'batch_approved');
    expect(issued.map((entry) => [entry.riskLevel, entry.risk_level])).toEqual([
      ['reversible', 'reversible'],
      ['reversible', 'reversible'],
    ]);
    expect(approved?.batchId).toEqual(expect.any(String));
    expect(approved?.batch_id).toBe(approved?.batchId);
    expect(Object.keys(approved ?? {})).not.toContain('batch_id');
    expect(counted()).toEqual({ risk_level: 1, batch_id: 1 });
  });
});
