/**
 * `displayArguments`: what a person is shown, and what the server keeps, is
 * built from the arguments as the option shows them, while the call runs
 * with, and a token stays bound to, its own arguments.
 */
import {
  MemoryStore,
  type ElicitationRequest,
  type ElicitationResponse,
  type ExtendedServer,
  type SetOptions,
  type AppendOptions,
  type ToolResult,
} from '@ext/core';
import { silentLogger, type JsonValue } from '@ext/core/kit';
import { createTestPair, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { confirmationClient, getConfirmationRequired } from './client.js';
import { CONFIRMATION_ID } from './schema.js';
import { confirmationServer, readConfirmationAudit, type ConfirmationServerOptions } from './server.js';

// Built at run time, so that the only whole copy is the one the caller sends.
const SECRET = ['s3cr3t', 'Value', '42'].join('-');
const HIDDEN = '[hidden]';

/** Hides the `password` argument, as a gateway's redaction would. */
const hidePassword: NonNullable<ConfirmationServerOptions['displayArguments']> = (args) => ({
  ...args,
  ...(args.password === undefined ? {} : { password: HIDDEN }),
});

/** A memory store that keeps a copy of everything written to it. */
class WatchedStore extends MemoryStore {
  readonly written: string[] = [];

  override set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    this.written.push(JSON.stringify([key, value]));
    return super.set(key, value, options);
  }

  override setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    this.written.push(JSON.stringify([key, value]));
    return super.setIfAbsent(key, value, options);
  }

  override compareAndSet(
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    options?: SetOptions,
  ): Promise<boolean> {
    this.written.push(JSON.stringify([key, next]));
    return super.compareAndSet(key, expected, next, options);
  }

  override append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    this.written.push(JSON.stringify([stream, value]));
    return super.append(stream, value, options);
  }
}

interface Setup {
  readonly line: TestLine;
  readonly store: WatchedStore;
  /** Compose the client half (the token path). */
  readonly client: boolean;
  readonly onElicit?: (request: ElicitationRequest) => Promise<ElicitationResponse>;
}

const open: TestPair[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((pair) => pair.close()));
});

/** A pair whose `connect_db` asks "Connect as {user} with {password}?"; `ran` gets the password each run used. */
async function pair(setup: Setup, ran: string[]): Promise<TestPair> {
  const created = await createTestPair({
    line: setup.line,
    serverExtensions: [errorsServer(), confirmationServer({ displayArguments: hidePassword })],
    clientExtensions: [errorsClient(), setup.client && confirmationClient()],
    setup: (server: ExtendedServer) => {
      server.registerTool(
        'connect_db',
        {
          inputSchema: z.object({ user: z.string(), password: z.string() }),
          _meta: {
            [CONFIRMATION_ID]: {
              requires_confirmation: true,
              risk_level: 'reversible',
              confirmation_message: 'Connect as {user} with {password}?',
            },
          },
        },
        (args): ToolResult => {
          ran.push(args.password);
          return { content: [{ type: 'text', text: 'connected' }] };
        },
      );
    },
    serverOptions: { store: setup.store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    onElicit: setup.onElicit,
  });
  open.push(created);
  return created;
}

const ARGS = { user: 'ada', password: SECRET };

async function auditText(store: MemoryStore): Promise<string> {
  return JSON.stringify(await readConfirmationAudit(store));
}

describe.each(TEST_LINES)('displayArguments (%s)', (line) => {
  it('the elicitation shows the displayed arguments; the call runs with its own; nothing kept holds the secret', async () => {
    const store = new WatchedStore();
    const asked: string[] = [];
    const ran: string[] = [];
    const { client } = await pair(
      {
        line,
        store,
        client: false,
        onElicit: (request) => {
          asked.push(JSON.stringify(request));
          return Promise.resolve({ action: 'accept', content: { confirm: true } });
        },
      },
      ran,
    );
    const result = await client.callTool('connect_db', ARGS);
    expect(result.isError).toBeFalsy();
    expect(ran).toEqual([SECRET]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`Connect as ada with ${HIDDEN}?`);
    expect(asked[0]).not.toContain(SECRET);
    expect(await auditText(store)).toContain('elicitation_accepted');
    expect(await auditText(store)).not.toContain(SECRET);
    expect(store.written.join('\n')).not.toContain(SECRET);
  });

  it('a held call carries the displayed message, and its token still runs the call with its own arguments', async () => {
    const store = new WatchedStore();
    const ran: string[] = [];
    const { client } = await pair({ line, store, client: true }, ran);
    const held = await client.callTool('connect_db', ARGS);
    const meta = getConfirmationRequired(held);
    expect(meta?.message).toBe(`Connect as ada with ${HIDDEN}?`);
    expect(JSON.stringify(held)).not.toContain(SECRET);

    const token = meta?.confirmation_token ?? '';
    const done = await client.callTool('connect_db', ARGS, {
      meta: { [CONFIRMATION_ID]: { confirmation_token: token } },
    });
    expect(done.isError).toBeFalsy();
    expect(ran).toEqual([SECRET]);
    expect(await auditText(store)).not.toContain(SECRET);
    expect(store.written.join('\n')).not.toContain(SECRET);
  });

  it('a fail-closed refusal names the displayed message, not the secret', async () => {
    const store = new WatchedStore();
    const ran: string[] = [];
    const { client } = await pair({ line, store, client: false }, ran);
    const refused = await client.callTool('connect_db', ARGS);
    expect(getStructuredError(refused)?.code).toBe('CONFIRMATION_REQUIRED');
    expect(JSON.stringify(refused)).not.toContain(SECRET);
    expect(ran).toEqual([]);
    expect(await auditText(store)).not.toContain(SECRET);
  });
});

describe('displayArguments option', () => {
  it('is refused when it is not a function, naming the option', () => {
    const notAFunction = 'hide' as unknown as ConfirmationServerOptions['displayArguments'];
    expect(() => confirmationServer({ displayArguments: notAFunction })).toThrow(/displayArguments/);
  });
});
