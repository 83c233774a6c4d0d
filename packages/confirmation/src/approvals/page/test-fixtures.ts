/**
 * What the page's tests share: a desk on a store that records every write,
 * API keys that name callers, signing in through the form, and the page
 * served over Node's `http` on a free port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryStore, type SetOptions } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import { nodeListener } from '@ext/core/sdk-v2';
import { approvalDesk, type ApprovalDesk } from '../desk.js';
import type { RiskLevel } from '../../schema.js';
import type { ApprovalRecord } from '../record.js';
import { approvalsPage, type ApprovalsPage } from './handler.js';
import type { ApprovalsPageOptions, PageCaller } from './options.js';

/** A store that keeps a copy of every value written, to show what is (not) stored. */
export class RecordingStore extends MemoryStore {
  readonly writes: { readonly key: string; readonly value: JsonValue }[] = [];

  override set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    this.writes.push({ key, value });
    return super.set(key, value, options);
  }

  override setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    this.writes.push({ key, value });
    return super.setIfAbsent(key, value, options);
  }

  override compareAndSet(
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    options?: SetOptions,
  ): Promise<boolean> {
    this.writes.push({ key, value: next });
    return super.compareAndSet(key, expected, next, options);
  }
}

/** The API keys the tests' server knows. */
export const KEYS: Readonly<Record<string, PageCaller>> = {
  'key-approver-0123456789': { principal: 'alice@example.com', scopes: ['tools:call', 'approvals:decide'] },
  'key-reader-0123456789': { principal: 'bob@example.com', scopes: ['tools:call'] },
};
export const APPROVER_KEY = 'key-approver-0123456789';
export const READER_KEY = 'key-reader-0123456789';

/** The server's identity check: a known API key as a bearer token. */
export function authenticate(request: Request): Promise<PageCaller | undefined> {
  const match = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '');
  return Promise.resolve(match?.[1] === undefined ? undefined : KEYS[match[1]]);
}

export interface PageFixture {
  readonly store: RecordingStore;
  readonly desk: ApprovalDesk;
  readonly page: ApprovalsPage;
  /** The fixture's clock, for another page on the same desk. */
  readonly now: () => number;
  /** Moves the fake clock. */
  advance(ms: number): void;
}

/** A desk and its page on one clock: a fixed one that `advance` moves, or `realTime`'s (a browser's page ticks with it). */
export function pageFixture(options: Partial<ApprovalsPageOptions> = {}, realTime = false): PageFixture {
  const start = realTime ? 0 : Date.UTC(2026, 10, 28, 9, 0, 0);
  let offset = 0;
  const clock = () => (realTime ? Date.now() : start) + offset;
  const store = new RecordingStore({ now: clock });
  const desk = approvalDesk({ store, now: clock, link: 'http://127.0.0.1/approvals' });
  const page = approvalsPage({ desk, authenticate, now: clock, ...options });
  return {
    store,
    desk,
    page,
    now: clock,
    advance(ms) {
      offset += ms;
    },
  };
}

/** Holds a call on the desk, as the confirmation server does. */
export async function holdCall(
  desk: ApprovalDesk,
  overrides: {
    tool?: string;
    message?: string;
    arguments?: Record<string, unknown>;
    principal?: string;
    riskLevel?: RiskLevel;
  } = {},
): Promise<ApprovalRecord> {
  const tool = overrides.tool ?? 'delete_repository';
  const { record } = await desk.open({
    principal: overrides.principal ?? 'agent-7',
    tool,
    argsDigest: `digest-${tool}-${String(Math.random())}`,
    toolDigest: 'tool-digest',
    riskLevel: overrides.riskLevel ?? 'destructive',
    message: overrides.message ?? `Delete the repository acme/${tool}`,
    arguments: overrides.arguments ?? { repository: 'acme/website', force: true },
  });
  return record;
}

/** A signed-in browser: its cookie (`name=value`) and the page's CSRF token. */
export interface SignedIn {
  readonly cookie: string;
  readonly setCookie: string;
  readonly csrf: string;
}

/** Signs in through the form, then reads the CSRF token off the page. */
export async function signIn(page: ApprovalsPage, origin: string, key: string = APPROVER_KEY): Promise<SignedIn> {
  const response = await page.fetch(
    new Request(`${origin}/approvals/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: key }).toString(),
    }),
  );
  const setCookie = response?.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const html = await (await page.fetch(new Request(`${origin}/approvals`, { headers: { cookie } })))?.text();
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(html ?? '')?.[1] ?? '';
  return { cookie, setCookie, csrf };
}

/** The page served over Node's `http` on 127.0.0.1, any other path answered 404. */
export async function servePage(page: ApprovalsPage): Promise<{ readonly origin: string; close(): Promise<void> }> {
  const handler = {
    fetch: async (request: Request) => (await page.fetch(request)) ?? new Response('Not found', { status: 404 }),
  };
  const server: Server = createServer(nodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}
