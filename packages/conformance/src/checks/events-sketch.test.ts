import { composeServer, MemoryStore, WireError, type MethodHandler } from '@ext/core';
import { createHttpHandler, extendServer, listen } from '@ext/core/sdk-v2/server';
import { errorsServer } from '@ext/errors/server';
import { eventsServer } from '@ext/events/server';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { Target } from '../probe.js';
import { runConformance, type RunOutcome } from '../runner.js';
import { eventsSketchSuite } from './events-sketch.js';

type Wrap = (handler: MethodHandler) => MethodHandler;

/** Faults planted in the draft's methods of a real `@ext/events` server, each with the checks it must fail. */
const FAULTS: Record<string, { readonly method: string; readonly wrap: Wrap; readonly fails: readonly string[] }> = {
  // events/list without the delivery modes of each event type.
  'list-without-delivery': {
    method: 'events/list',
    wrap: (handler) => async (params, ctx) => {
      const answer = await handler(params, ctx);
      const events = (answer.events as Record<string, unknown>[]).map(({ delivery: _dropped, ...entry }) => entry);
      return { ...answer, events };
    },
    fails: ['events-sketch/list'],
  },
  // events/poll without nextPollMs.
  'poll-without-next-poll': {
    method: 'events/poll',
    wrap: (handler) => async (params, ctx) => {
      const { nextPollMs: _dropped, ...answer } = await handler(params, ctx);
      return answer;
    },
    fails: ['events-sketch/poll'],
  },
  // A null cursor replays the whole log instead of starting from now.
  'bootstrap-replays': {
    method: 'events/poll',
    wrap: (handler) => (params, ctx) => handler(params.cursor === null ? { ...params, cursor: 'c1_' } : params, ctx),
    fails: ['events-sketch/poll'],
  },
  // An unknown event name answered as invalid params instead of NotFound.
  'unknown-event-invalid-params': {
    method: 'events/poll',
    wrap: (handler) => async (params, ctx) => {
      try {
        return await handler(params, ctx);
      } catch (error) {
        if (WireError.isInstance(error) && error.code === -32011)
          throw new WireError(-32602, error.message, error.data);
        throw error;
      }
    },
    fails: ['events-sketch/unknown-event'],
  },
};

/** A real events server (two events already published) with `fault` planted, served over HTTP in-process. */
async function withServer<T>(fault: string | undefined, body: (target: Target) => Promise<T>): Promise<T> {
  const events = eventsServer({
    officialDraft: true,
    events: {
      ticket_updated: {
        description: 'A ticket changed status',
        // Plain JSON Schema object schemas, as a server without TypeBox declares them.
        payload: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as never,
        filter: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false } as never,
      },
    },
  });
  const planted = fault === undefined ? undefined : FAULTS[fault];
  const named = { ...events.namedMethods };
  if (planted !== undefined) {
    const original = named[planted.method];
    if (original === undefined) throw new Error(`no method ${planted.method}`);
    named[planted.method] = planted.wrap(original);
  }
  const store = new MemoryStore();
  await events.publish(store, 'ticket_updated', { id: 'T-1' } as never);
  await events.publish(store, 'ticket_updated', { id: 'T-2' } as never);
  const composed = composeServer([errorsServer(), { ...events, namedMethods: named }]);
  const createServer = () => {
    const server = new McpServer({ name: 'events-sketch-fixture', version: '1.0.0' });
    extendServer(server, composed, { store });
    return server;
  };
  const listening = await listen(createHttpHandler(createServer, { identify: () => 'conformance-kit' }), { port: 0 });
  try {
    return await body({ kind: 'http', url: String(listening.url) });
  } finally {
    await listening.close();
    await events.stop();
  }
}

function run(target: Target, protocolVersion: string): Promise<RunOutcome> {
  return runConformance({ target, protocolVersion, extensions: ['events-sketch'] });
}

const statusOf = (outcome: RunOutcome, status: string): string[] =>
  outcome.results
    .filter((result) => result.extension === 'events-sketch' && result.status === status)
    .map((result) => result.id);

const ALL = eventsSketchSuite.checks.map((check) => check.id);

describe.each(['2026-07-28', '2025-11-25'])('the events-sketch suite on %s', (protocolVersion) => {
  it('passes every check against @ext/events', async () => {
    const outcome = await withServer(undefined, (target) => run(target, protocolVersion));
    expect(outcome.server.extensions).toHaveProperty(['io.modelcontextprotocol/events']);
    expect(statusOf(outcome, 'passed')).toEqual(ALL);
    expect(outcome.results.filter((result) => result.status === 'failed')).toEqual([]);
    expect(outcome.exitCode).toBe(0);
  });

  it.each(Object.entries(FAULTS))('fails exactly the checks a planted fault breaks: %s', async (fault, planted) => {
    const outcome = await withServer(fault, (target) => run(target, protocolVersion));
    expect(statusOf(outcome, 'error')).toEqual([]);
    expect(statusOf(outcome, 'failed').sort()).toEqual([...planted.fails].sort());
    expect(outcome.exitCode).toBe(1);
  });
});
