/**
 * CONF-32: identical gated calls in flight at once (one principal, one tool,
 * the same canonical arguments) share one in-band question; the tool runs
 * once, on the person's yes, and every call gets what came of it.
 */
import { MemoryStore, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import { confirmationElicitationHandler, type ConfirmationRequest } from './client.js';
import { confirmationServer, readConfirmationAudit } from './server.js';
import { deleteRepoTool } from './test-fixtures/gated-tools.js';

const CALLS = 20;

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

/** A person who answers every question with `answer`, once the test lets them. */
class Person {
  readonly asked: ConfirmationRequest[] = [];
  #release: () => void = () => undefined;
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  constructor(private readonly answer: boolean) {}

  readonly handler = confirmationElicitationHandler(async (request) => {
    this.asked.push(request);
    await this.#released;
    return this.answer;
  });

  release(): void {
    this.#release();
  }
}

async function connect(line: TestLine, person: Person, store: MemoryStore, ran: string[]): Promise<TestPair> {
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), confirmationServer()],
    clientExtensions: [errorsClient()],
    setup: deleteRepoTool(ran),
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    onElicit: person.handler,
  });
  open.push(pair);
  return pair;
}

/** Resolves once every call was either asked about or attached to a question already asked. */
async function untilEveryCallWaits(person: Person, store: MemoryStore): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const shared = (await readConfirmationAudit(store, { limit: 1000 })).filter(
      (item) => item.entry.event === 'elicitation_shared',
    ).length;
    if (person.asked.length + shared >= CALLS) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`only ${String(person.asked.length)} calls were asked about`);
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

describe.each(TEST_LINES)('identical gated calls share one question on %s (CONF-32)', (line) => {
  it(`${String(CALLS)} concurrent identical calls: one question, and on its yes the tool runs once for all`, async () => {
    const person = new Person(true);
    const store = new MemoryStore();
    const ran: string[] = [];
    const { client } = await connect(line, person, store, ran);
    const calls = Array.from({ length: CALLS }, () => client.callTool('delete_repo', { repo: 'test' }));
    await untilEveryCallWaits(person, store);
    person.release();
    const results = await Promise.all(calls);
    expect(person.asked).toHaveLength(1);
    expect(ran).toEqual(['test']);
    expect(results.map(textOf)).toEqual(Array.from({ length: CALLS }, () => 'deleted test'));
    const events = (await readConfirmationAudit(store, { limit: 1000 })).map((item) => item.entry.event);
    expect(events.filter((event) => event === 'elicitation_accepted')).toHaveLength(1);
    expect(events.filter((event) => event === 'elicitation_shared')).toHaveLength(CALLS - 1);
  });

  it('on a "no" every one of them is declined, and nothing runs', async () => {
    const person = new Person(false);
    const store = new MemoryStore();
    const ran: string[] = [];
    const { client } = await connect(line, person, store, ran);
    const calls = Array.from({ length: CALLS }, () => client.callTool('delete_repo', { repo: 'test' }));
    await untilEveryCallWaits(person, store);
    person.release();
    const results = await Promise.all(calls);
    expect(person.asked).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(new Set(results.map((result) => getStructuredError(result)?.code))).toEqual(
      new Set(['CONFIRMATION_DECLINED']),
    );
  });

  it('calls with other arguments are other questions, and a call after the answer is asked again', async () => {
    const person = new Person(true);
    person.release();
    const store = new MemoryStore();
    const ran: string[] = [];
    const { client } = await connect(line, person, store, ran);
    const results = await Promise.all([
      client.callTool('delete_repo', { repo: 'a' }),
      client.callTool('delete_repo', { repo: 'b' }),
    ]);
    expect(results.map(textOf).sort()).toEqual(['deleted a', 'deleted b']);
    await client.callTool('delete_repo', { repo: 'a' });
    expect(person.asked.map((request) => (request.kind === 'call' ? request.message : request.kind)).sort()).toEqual([
      'Delete a?',
      'Delete a?',
      'Delete b?',
    ]);
    expect([...ran].sort()).toEqual(['a', 'a', 'b']);
  });
});
