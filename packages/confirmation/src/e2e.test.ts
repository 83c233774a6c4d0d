import {
  MemoryStore,
  WireError,
  type AuthInfo,
  type ElicitationRequest,
  type ElicitationResponse,
  type ExtendedServer,
  type Store,
  type ToolResult,
} from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { contentNegotiationClient, getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  callManyWithConfirmation,
  callWithConfirmation,
  confirmationClient,
  confirmationElicitationHandler,
  getConfirmationRequired,
  grantMeta,
  requestGrant,
  type ConfirmationRequest,
} from './client.js';
import { CONFIRMATION_ID, confirmationJsonSchema, getConfirmationSettings } from './index.js';
import { SCHEMA_BASE } from './schema.js';
import {
  CONFIRM_INPUT_KEY,
  confirmationServer,
  readConfirmationAudit,
  type ConfirmationServerOptions,
} from './server.js';
import type { ServerExtension } from '@ext/core';

const ajv = new Ajv2020({ strict: true });
addFormats.default(ajv);
ajv.addSchema(confirmationJsonSchema());
const validRequiredMeta = (value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/confirmation-required.json`, value);
const validError = seedValidators().check('error');

/** A fake clock the server reads, so expiry is tested without waiting. */
class Clock {
  ms = Date.parse('2026-07-28T12:00:00.000Z');
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** The tools of the fixture server and what really ran. */
class Fixture {
  readonly ran: string[] = [];

  readonly setup = (server: ExtendedServer): void => {
    const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
    server.registerTool(
      'delete_repo',
      {
        description: 'Deletes a repository',
        inputSchema: z.object({ repo: z.string() }),
        _meta: {
          [CONFIRMATION_ID]: {
            risk_level: 'destructive',
            confirmation_message: 'Permanently delete repository {repo}?',
          },
        },
      },
      (args) => {
        this.ran.push(`delete_repo:${args.repo}`);
        return text(`deleted ${args.repo}`);
      },
    );
    server.registerTool(
      'archive_repo',
      {
        description: 'Archives a repository',
        inputSchema: z.object({ repo: z.string() }),
        _meta: { [CONFIRMATION_ID]: { requires_confirmation: true, risk_level: 'reversible' } },
      },
      (args) => {
        this.ran.push(`archive_repo:${args.repo}`);
        return text(`archived ${args.repo}`);
      },
    );
    server.registerTool(
      'list_repos',
      { description: 'Lists repositories', annotations: { readOnlyHint: true } },
      () => {
        this.ran.push('list_repos');
        return text('a, b');
      },
    );
  };

  count(prefix: string): number {
    return this.ran.filter((entry) => entry.startsWith(prefix)).length;
  }
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

interface PairOptions {
  readonly server?: ServerExtension;
  readonly serverOptions?: ConfirmationServerOptions;
  /** Compose the client half (path b). Default true. */
  readonly client?: boolean;
  readonly onElicit?: (request: ElicitationRequest) => Promise<ElicitationResponse>;
  readonly store?: Store;
  readonly authInfo?: AuthInfo;
  readonly contentNegotiation?: readonly string[];
  /** Compose `@ext/errors` on both sides. Default true. */
  readonly errors?: boolean;
}

async function pair(line: TestLine, fixture: Fixture, options: PairOptions = {}): Promise<TestPair> {
  const server = options.server ?? confirmationServer(options.serverOptions);
  const features = options.contentNegotiation;
  const created = await createTestPair({
    line,
    serverExtensions: [
      options.errors !== false && errorsServer(),
      server,
      features !== undefined && contentNegotiationServer(),
    ],
    clientExtensions: [
      options.errors !== false && errorsClient(),
      options.client !== false && confirmationClient(),
      features !== undefined && contentNegotiationClient({ features }),
    ],
    setup: fixture.setup,
    serverOptions: { store: options.store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    onElicit: options.onElicit,
    authInfo: options.authInfo,
  });
  open.push(created);
  return created;
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

function errorCode(result: ToolResult): string | undefined {
  expect(result.isError).toBe(true);
  const error = getStructuredError(result);
  expect(validError(error).valid).toBe(true);
  return error?.code;
}

function tokenMeta(token: string): { meta: Record<string, unknown> } {
  return { meta: { [CONFIRMATION_ID]: { confirmation_token: token } } };
}

async function held(client: TestPair['client'], tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool(tool, args);
  const meta = getConfirmationRequired(result);
  if (meta === undefined) throw new Error(`expected ${tool} to be held, got ${JSON.stringify(result)}`);
  return meta.confirmation_token;
}

const yes = (): Promise<boolean> => Promise.resolve(true);
const no = (): Promise<boolean> => Promise.resolve(false);

describe.each(TEST_LINES)('confirmation end to end on %s', (line) => {
  it('CONF-1 CONF-2 CONF-3 CONF-14: advertises settings, normalized tool metadata and a consistent destructiveHint', async () => {
    const { client } = await pair(line, new Fixture());
    expect(getConfirmationSettings(client.serverExtensions())).toEqual({
      version: '1.0',
      token_ttl_seconds: 300,
      max_batch_size: 100,
    });
    const tools = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('delete_repo')?._meta?.[CONFIRMATION_ID]).toEqual({
      requires_confirmation: true,
      risk_level: 'destructive',
      confirmation_message: 'Permanently delete repository {repo}?',
    });
    expect(byName.get('delete_repo')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('archive_repo')?._meta?.[CONFIRMATION_ID]).toEqual({
      requires_confirmation: true,
      risk_level: 'reversible',
    });
    expect(byName.get('archive_repo')?.annotations?.destructiveHint).toBe(false);
    expect(byName.get('list_repos')?._meta?.[CONFIRMATION_ID]).toBeUndefined();
  });

  it('CONF-5 CONF-8: path (b) holds the call with a filled-in message and a token, and does not execute it', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const result = await client.callTool('delete_repo', { repo: 'test' });
    expect(result.isError).toBeFalsy();
    const meta = result._meta?.[CONFIRMATION_ID];
    expect(validRequiredMeta(meta)).toBe(true);
    expect(meta).toMatchObject({
      status: 'confirmation_required',
      tool: 'delete_repo',
      risk_level: 'destructive',
      message: 'Permanently delete repository test?',
    });
    expect(textOf(result)).toContain('Confirmation required (destructive)');
    expect(fixture.ran).toEqual([]);
    expect((await client.callTool('list_repos')).isError).toBeFalsy();
    expect(fixture.ran).toEqual(['list_repos']);
  });

  it('CONF-8 CONF-18: the client helper asks the user and retries with the token; a "no" executes nothing', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const asked: ConfirmationRequest[] = [];
    const ok = await callWithConfirmation(
      client,
      'delete_repo',
      { repo: 'test' },
      {
        confirm: (request) => {
          asked.push(request);
          return Promise.resolve(true);
        },
      },
    );
    expect(textOf(ok)).toBe('deleted test');
    expect(ok._meta?.[CONFIRMATION_ID]).toEqual({ status: 'confirmed', via: 'token' });
    expect(asked).toMatchObject([
      {
        kind: 'call',
        via: 'token',
        tool: 'delete_repo',
        riskLevel: 'destructive',
        message: 'Permanently delete repository test?',
      },
    ]);
    const declined = await callWithConfirmation(client, 'delete_repo', { repo: 'prod' }, { confirm: no });
    expect(errorCode(declined)).toBe('CONFIRMATION_DECLINED');
    expect(fixture.ran).toEqual(['delete_repo:test']);
  });

  it('CONF-5 CONF-6: path (a) asks in-band where the client can elicit, and runs only on explicit acceptance', async () => {
    const fixture = new Fixture();
    const asked: ConfirmationRequest[] = [];
    let answer = true;
    const { client } = await pair(line, fixture, {
      client: false,
      onElicit: confirmationElicitationHandler((request) => {
        asked.push(request);
        return Promise.resolve(answer);
      }),
    });
    const first = await client.callTool('delete_repo', { repo: 'test' });
    expect(textOf(first)).toBe('deleted test');
    expect(asked).toMatchObject([
      {
        kind: 'call',
        via: 'elicitation',
        tool: 'delete_repo',
        riskLevel: 'destructive',
        message: 'Permanently delete repository test?',
      },
    ]);
    answer = false;
    expect(errorCode(await client.callTool('delete_repo', { repo: 'prod' }))).toBe('CONFIRMATION_DECLINED');
    expect(fixture.ran).toEqual(['delete_repo:test']);
  });

  it('CONF-6: an acceptance without confirm: true is not an approval', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      client: false,
      onElicit: () => Promise.resolve({ action: 'accept', content: { confirm: false } }),
    });
    const result = await client.callTool('delete_repo', { repo: 'test' });
    expect(errorCode(result)).toBe('CONFIRMATION_DECLINED');
    expect(fixture.ran).toEqual([]);
  });

  it('CONF-6a: on 2026-07-28 an answer counts only for a question this server asked, for this call, once', async () => {
    if (line !== 'v2-modern') return;
    const fixture = new Fixture();
    const store = new MemoryStore();
    const asked: string[] = [];
    const { client } = await pair(line, fixture, {
      client: false,
      store,
      onElicit: (request) => {
        asked.push(request.message);
        return Promise.resolve({ action: 'decline' });
      },
    });
    const accept = { [CONFIRM_INPUT_KEY]: { action: 'accept', content: { confirm: true } } };
    // An acceptance nobody asked for: the server asks (the client's user declines), and nothing runs.
    const unasked = (await client.request('tools/call', {
      name: 'delete_repo',
      arguments: { repo: 'prod' },
      inputResponses: accept,
    })) as ToolResult;
    expect(errorCode(unasked)).toBe('CONFIRMATION_DECLINED');
    expect(asked).toHaveLength(1);
    // The same with a state the server never minted.
    const forged = (await client.request('tools/call', {
      name: 'delete_repo',
      arguments: { repo: 'prod' },
      inputResponses: accept,
      requestState: 'x'.repeat(43),
    })) as ToolResult;
    expect(errorCode(forged)).toBe('CONFIRMATION_DECLINED');
    expect(asked).toHaveLength(2);
    expect(fixture.ran).toEqual([]);
    const audit = await readConfirmationAudit(store);
    expect(audit.map((item) => item.entry.event)).toEqual([
      'elicitation_unasked',
      'elicitation_declined',
      'elicitation_unasked',
      'elicitation_declined',
    ]);
  });

  it('CONF-5: prefer "elicitation" asks in-band even when the client negotiated the extension', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture, {
      serverOptions: { prefer: 'elicitation' },
      onElicit: confirmationElicitationHandler(yes),
    });
    const result = await client.callTool('delete_repo', { repo: 'test' });
    expect(textOf(result)).toBe('deleted test');
    expect(result._meta?.[CONFIRMATION_ID]).toEqual({ status: 'confirmed', via: 'elicitation' });
  });

  it('CONF-7: path (c) refuses a gated call with a permanent error and never executes it', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const { client } = await pair(line, fixture, { client: false, store });
    const result = await client.callTool('delete_repo', { repo: 'prod' });
    expect(errorCode(result)).toBe('CONFIRMATION_REQUIRED');
    expect(getStructuredError(result)?.category).toBe('permanent');
    expect(textOf(result)).toContain('not executed');
    // The helper surfaces the refusal as it is.
    expect(errorCode(await callWithConfirmation(client, 'archive_repo', { repo: 'x' }, { confirm: yes }))).toBe(
      'CONFIRMATION_REQUIRED',
    );
    expect(fixture.ran).toEqual([]);
    expect((await client.callTool('list_repos')).isError).toBeFalsy();
    const audit = await readConfirmationAudit(store);
    expect(audit.map((item) => item.entry.event)).toEqual(['refused_no_channel', 'refused_no_channel']);
  });

  it('CONF-7: without @ext/errors the refusal is still an error and nothing runs', async () => {
    const fixture = new Fixture();
    const bare = await pair(line, fixture, { client: false, errors: false });
    const refused = await bare.client.callTool('delete_repo', { repo: 'prod' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('not executed');
    const negotiated = await pair(line, fixture, { errors: false });
    expect(getConfirmationRequired(await negotiated.client.callTool('delete_repo', { repo: 'prod' }))).toBeDefined();
    expect(fixture.ran).toEqual([]);
  });

  it('CONF-9: a token approved for repo "test" never authorises repo "prod" (nor another tool)', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const token = await held(client, 'delete_repo', { repo: 'test' });
    expect(errorCode(await client.callTool('delete_repo', { repo: 'prod' }, tokenMeta(token)))).toBe(
      'CONFIRMATION_ARGUMENTS_MISMATCH',
    );
    expect(errorCode(await client.callTool('archive_repo', { repo: 'test' }, tokenMeta(token)))).toBe(
      'CONFIRMATION_ARGUMENTS_MISMATCH',
    );
    expect(fixture.ran).toEqual([]);
    // The mismatch did not burn the token: the approved call still goes through.
    expect(textOf(await client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token)))).toBe('deleted test');
  });

  it('CONF-9 CONF-10 CONF-13 CONF-17: a token is single use, the replay gets its own error, and the audit never holds the token', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const { client } = await pair(line, fixture, { store });
    const token = await held(client, 'delete_repo', { repo: 'test' });
    expect(textOf(await client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token)))).toBe('deleted test');
    const replay = await client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token));
    expect(errorCode(replay)).toBe('CONFIRMATION_TOKEN_REPLAYED');
    expect(fixture.count('delete_repo')).toBe(1);
    const audit = await readConfirmationAudit(store);
    expect(audit.map((item) => item.entry.event)).toEqual(['token_issued', 'token_redeemed', 'token_refused']);
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(JSON.stringify(await store.get(`confirmation:token:${token}`))).toBeUndefined();
  });

  it('CONF-10: two concurrent retries with one token execute once', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const token = await held(client, 'delete_repo', { repo: 'test' });
    const results = await Promise.all(
      [0, 1, 2].map(() => client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token))),
    );
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(results.filter((result) => result.isError).map(errorCode)).toEqual([
      'CONFIRMATION_TOKEN_REPLAYED',
      'CONFIRMATION_TOKEN_REPLAYED',
    ]);
    expect(fixture.count('delete_repo')).toBe(1);
  });

  it('CONF-11: a token expires after 5 minutes by default (fake clock)', async () => {
    const fixture = new Fixture();
    const clock = new Clock();
    const { client } = await pair(line, fixture, { serverOptions: { now: clock.now } });
    const token = await held(client, 'delete_repo', { repo: 'test' });
    const late = await held(client, 'delete_repo', { repo: 'late' });
    clock.advance(299);
    expect(textOf(await client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token)))).toBe('deleted test');
    clock.advance(1);
    expect(errorCode(await client.callTool('delete_repo', { repo: 'late' }, tokenMeta(late)))).toBe(
      'CONFIRMATION_TOKEN_EXPIRED',
    );
    expect(fixture.ran).toEqual(['delete_repo:test']);
  });

  it('CONF-9: another principal cannot use my token', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const server = confirmationServer();
    const alice = await pair(line, fixture, { store, server, authInfo: { clientId: 'alice', scopes: [] } });
    const mallory = await pair(line, fixture, { store, server, authInfo: { clientId: 'mallory', scopes: [] } });
    const token = await held(alice.client, 'delete_repo', { repo: 'test' });
    const stolen = await mallory.client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token));
    expect(errorCode(stolen)).toBe('CONFIRMATION_PRINCIPAL_MISMATCH');
    expect(fixture.ran).toEqual([]);
    expect(textOf(await alice.client.callTool('delete_repo', { repo: 'test' }, tokenMeta(token)))).toBe('deleted test');
  });

  it('CONF-9: unknown and malformed tokens get clear errors naming the field', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const unknown = await client.callTool('delete_repo', { repo: 'test' }, tokenMeta('A'.repeat(43)));
    expect(errorCode(unknown)).toBe('CONFIRMATION_TOKEN_INVALID');
    const malformed = await client.callTool('delete_repo', { repo: 'test' }, tokenMeta('nope'));
    expect(errorCode(malformed)).toBe('INVALID_INPUT');
    expect(getStructuredError(malformed)?.details).toEqual({
      field: 'confirmation_token',
      pointer: '/_meta/io.github.mcp-ext~1confirmation/confirmation_token',
    });
    expect(fixture.ran).toEqual([]);
  });

  it('CONF-9a: an entry with no token ({}), a token of the wrong type, an unknown field or both fields is refused naming the field; nothing runs or is issued', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const { client } = await pair(line, fixture, { store });
    const entry = (value: unknown): { meta: Record<string, unknown> } => ({ meta: { [CONFIRMATION_ID]: value } });
    const pointer = (field: string): string => `/_meta/io.github.mcp-ext~1confirmation${field}`;
    const cases: [unknown, string, string][] = [
      [{}, pointer('/confirmation_token'), 'confirmation_token'],
      [{ confirmation_token: 42 }, pointer('/confirmation_token'), 'confirmation_token'],
      [{ confirmation_token: null }, pointer('/confirmation_token'), 'confirmation_token'],
      [{ confirmation_tokn: 'A'.repeat(43) }, pointer('/confirmation_tokn'), 'confirmation_tokn'],
      [{ confirmation_token: 'A'.repeat(43), approved: true }, pointer('/approved'), 'approved'],
      [{ confirmation_token: 'A'.repeat(43), grant_id: 'B'.repeat(43) }, pointer('/grant_id'), 'grant_id'],
      [[], pointer(''), CONFIRMATION_ID],
    ];
    for (const [value, expected, field] of cases) {
      const result = await client.callTool('delete_repo', { repo: 'prod' }, entry(value));
      expect(errorCode(result), JSON.stringify(value)).toBe('INVALID_INPUT');
      expect(getStructuredError(result), JSON.stringify(value)).toMatchObject({
        category: 'invalid_input',
        details: { pointer: expected, field },
      });
      expect(getConfirmationRequired(result)).toBeUndefined();
    }
    expect(fixture.ran).toEqual([]);
    expect(await readConfirmationAudit(store)).toEqual([]);
    // A well-behaved client without a token sends no entry at all, and is asked.
    const token = await held(client, 'delete_repo', { repo: 'prod' });
    expect(textOf(await client.callTool('delete_repo', { repo: 'prod' }, tokenMeta(token)))).toBe('deleted prod');
    expect(fixture.ran).toEqual(['delete_repo:prod']);
  });

  it('CONF-4a: control, bidi and invisible characters in an argument reach the person as visible escapes', async () => {
    const repo = 'test\u001b[2J\r\n\nRisk level: safe.\u202Eexe.\u200b';
    const shown = 'Permanently delete repository test\\u001b[2J\\r\\n\\nRisk level: safe.\\u202eexe.\\u200b?';
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must never reach the person
    const forbidden = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const result = await client.callTool('delete_repo', { repo });
    expect(getConfirmationRequired(result)?.message).toBe(shown);
    expect(textOf(result)).not.toMatch(forbidden);
    expect(textOf(result).split('\n')[0]).toBe(`Confirmation required (destructive): ${shown}`);
    const asked: string[] = [];
    const inBand = await pair(line, fixture, {
      client: false,
      onElicit: (request) => {
        asked.push(request.message);
        return Promise.resolve({ action: 'decline' });
      },
    });
    expect(errorCode(await inBand.client.callTool('delete_repo', { repo }))).toBe('CONFIRMATION_DECLINED');
    expect(asked).toEqual([`${shown}\n\nRisk level: destructive.`]);
    expect(fixture.ran).toEqual([]);
  });

  it('CONF-12 CONF-13: fifty deletions are one dialog, approved in one request, executed once each, and audited', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const { client } = await pair(line, fixture, { store });
    const dialogs: ConfirmationRequest[] = [];
    const calls = Array.from({ length: 50 }, (_, index) => ({ name: 'delete_repo', arguments: { repo: `r${index}` } }));
    const results = await callManyWithConfirmation(client, [...calls, { name: 'list_repos' }], {
      confirm: (request) => {
        dialogs.push(request);
        return Promise.resolve(true);
      },
    });
    expect(dialogs).toHaveLength(1);
    const dialog = dialogs[0];
    expect(dialog?.kind === 'batch' ? dialog.calls.length : 0).toBe(50);
    expect(dialog?.kind === 'batch' ? dialog.riskLevel : undefined).toBe('destructive');
    expect(results.map(textOf)).toEqual([...calls.map((call) => `deleted ${call.arguments.repo}`), 'a, b']);
    expect(fixture.count('delete_repo')).toBe(50);
    const audit = (await readConfirmationAudit(store, { limit: 1000 })).map((item) => item.entry);
    expect(audit.filter((entry) => entry.event === 'batch_approved')).toMatchObject([{ count: 50 }]);
    expect(audit.filter((entry) => entry.event === 'token_redeemed')).toHaveLength(50);
  });

  it('CONF-12: a declined batch executes nothing', async () => {
    const fixture = new Fixture();
    const { client } = await pair(line, fixture);
    const results = await callManyWithConfirmation(
      client,
      [
        { name: 'delete_repo', arguments: { repo: 'a' } },
        { name: 'archive_repo', arguments: { repo: 'b' } },
      ],
      { confirm: no },
    );
    expect(results.map(errorCode)).toEqual(['CONFIRMATION_DECLINED', 'CONFIRMATION_DECLINED']);
    expect(fixture.ran).toEqual([]);
  });

  it('CONF-12: approval is bounded and per token: too many, foreign, used or expired tokens are rejected', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const clock = new Clock();
    const server = confirmationServer({ maxBatchSize: 3, now: clock.now });
    const alice = await pair(line, fixture, { store, server, authInfo: { clientId: 'alice', scopes: [] } });
    const mallory = await pair(line, fixture, { store, server, authInfo: { clientId: 'mallory', scopes: [] } });
    const method = `${CONFIRMATION_ID}/approve`;
    const mine = await held(alice.client, 'delete_repo', { repo: 'a' });
    const used = await held(alice.client, 'delete_repo', { repo: 'b' });
    await alice.client.callTool('delete_repo', { repo: 'b' }, tokenMeta(used));
    const theirs = await held(mallory.client, 'delete_repo', { repo: 'c' });
    const tooMany = await alice.client
      .request(method, { confirmation_tokens: [mine, used, theirs, 'A'.repeat(43)] })
      .catch((error: unknown) => error);
    expect(WireError.isInstance(tooMany) ? (tooMany.data as { code: string }).code : undefined).toBe(
      'CONFIRMATION_BATCH_TOO_LARGE',
    );
    const outcome = await alice.client.request(method, { confirmation_tokens: [mine, used, theirs] });
    expect(outcome.approved).toEqual([mine]);
    expect(outcome.rejected).toMatchObject([
      { confirmation_token: used, code: 'CONFIRMATION_TOKEN_REPLAYED' },
      { confirmation_token: theirs, code: 'CONFIRMATION_PRINCIPAL_MISMATCH' },
    ]);
    const late = await held(alice.client, 'delete_repo', { repo: 'd' });
    clock.advance(301);
    expect(await alice.client.request(method, { confirmation_tokens: [late] })).toMatchObject({
      approved: [],
      rejected: [{ code: 'CONFIRMATION_TOKEN_EXPIRED' }],
    });
  });

  it('CONF-15: a grant covers N calls of one tool within T seconds, bounded and audited', async () => {
    const fixture = new Fixture();
    const store = new MemoryStore();
    const clock = new Clock();
    const { client } = await pair(line, fixture, {
      store,
      serverOptions: { now: clock.now, grants: { maxCalls: 5, maxDurationSeconds: 60 } },
    });
    expect(getConfirmationSettings(client.serverExtensions())?.grants).toEqual({
      max_calls: 5,
      max_duration_seconds: 60,
    });
    const asked: ConfirmationRequest[] = [];
    const grant = await requestGrant(client, 'archive_repo', {
      maxCalls: 2,
      durationSeconds: 30,
      confirm: (request) => {
        asked.push(request);
        return Promise.resolve(true);
      },
    });
    expect(asked).toEqual([{ kind: 'grant', tool: 'archive_repo', maxCalls: 2, durationSeconds: 30 }]);
    if (grant === undefined) throw new Error('expected a grant');
    const meta = { meta: grantMeta(grant) };
    expect((await client.callTool('archive_repo', { repo: 'a' }, meta))._meta?.[CONFIRMATION_ID]).toEqual({
      status: 'confirmed',
      via: 'grant',
      grant_calls_remaining: 1,
    });
    expect(textOf(await client.callTool('archive_repo', { repo: 'b' }, meta))).toBe('archived b');
    expect(errorCode(await client.callTool('archive_repo', { repo: 'c' }, meta))).toBe('CONFIRMATION_GRANT_EXHAUSTED');
    expect(errorCode(await client.callTool('delete_repo', { repo: 'c' }, meta))).toBe(
      'CONFIRMATION_GRANT_TOOL_MISMATCH',
    );
    expect(fixture.ran).toEqual(['archive_repo:a', 'archive_repo:b']);

    const second = await requestGrant(client, 'archive_repo', { maxCalls: 5, durationSeconds: 60, confirm: yes });
    if (second === undefined) throw new Error('expected a grant');
    clock.advance(60);
    expect(errorCode(await client.callTool('archive_repo', { repo: 'd' }, { meta: grantMeta(second) }))).toBe(
      'CONFIRMATION_GRANT_EXPIRED',
    );
    expect(
      await requestGrant(client, 'archive_repo', { maxCalls: 2, durationSeconds: 30, confirm: no }),
    ).toBeUndefined();

    const tooBig = await requestGrant(client, 'archive_repo', { maxCalls: 6, durationSeconds: 30, confirm: yes }).catch(
      (error: unknown) => error,
    );
    expect(WireError.isInstance(tooBig) ? (tooBig.data as { code: string }).code : undefined).toBe(
      'CONFIRMATION_GRANT_LIMIT',
    );
    const ungated = await requestGrant(client, 'list_repos', { maxCalls: 1, durationSeconds: 30, confirm: yes }).catch(
      (error: unknown) => error,
    );
    expect(WireError.isInstance(ungated) ? (ungated.data as { code: string }).code : undefined).toBe(
      'CONFIRMATION_GRANT_INVALID',
    );
    const events = (await readConfirmationAudit(store)).map((item) => item.entry.event);
    expect(events.filter((event) => event === 'grant_issued')).toHaveLength(2);
    expect(events.filter((event) => event === 'grant_used')).toHaveLength(2);
  });

  it('CONF-15: grants are off unless the server offers them', async () => {
    const { client } = await pair(line, new Fixture());
    const refused = await requestGrant(client, 'archive_repo', {
      maxCalls: 1,
      durationSeconds: 10,
      confirm: yes,
    }).catch((error: unknown) => error);
    expect(WireError.isInstance(refused) ? (refused.data as { code: string }).code : undefined).toBe(
      'CONFIRMATION_GRANTS_DISABLED',
    );
  });

  it('CONF-16: the content-negotiation tag !interactive never skips the gate', async () => {
    const fixture = new Fixture();
    const withExtension = await pair(line, fixture, { contentNegotiation: ['!interactive', 'agent'] });
    // The tags really are negotiated and applied: the server echoes them on results.
    expect(withExtension.client.negotiated(CONTENT_NEGOTIATION_ID)).toBeDefined();
    expect(
      getAppliedFeatures(
        await withExtension.client.callTool('list_repos', {}, { meta: overrideFeatures(['!interactive']) }),
      ),
    ).toBeDefined();
    const heldResult = await withExtension.client.callTool(
      'delete_repo',
      { repo: 'prod' },
      { meta: overrideFeatures(['!interactive']) },
    );
    expect(getConfirmationRequired(heldResult)).toBeDefined();
    const without = await pair(line, fixture, { client: false, contentNegotiation: ['!interactive'] });
    const refused = await without.client.callTool(
      'delete_repo',
      { repo: 'prod' },
      { meta: overrideFeatures(['!interactive']) },
    );
    expect(errorCode(refused)).toBe('CONFIRMATION_REQUIRED');
    const asked: ConfirmationRequest[] = [];
    const eliciting = await pair(line, fixture, {
      client: false,
      contentNegotiation: ['!interactive'],
      onElicit: confirmationElicitationHandler((request) => {
        asked.push(request);
        return Promise.resolve(false);
      }),
    });
    const declined = await eliciting.client.callTool(
      'delete_repo',
      { repo: 'prod' },
      { meta: overrideFeatures(['!interactive']) },
    );
    expect(errorCode(declined)).toBe('CONFIRMATION_DECLINED');
    expect(asked).toHaveLength(1);
    expect(fixture.ran).toEqual(['list_repos']);
  });
});
