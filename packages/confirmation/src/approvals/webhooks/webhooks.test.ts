/**
 * Approval webhooks over real HTTP: a receiver on a port verifies every
 * delivery with `standardwebhooks`, and follows the signed decision links
 * served by `links.fetch` on another port. Covers signing, single use,
 * tampering, expiry, decisions made elsewhere, GET deciding nothing,
 * retries, the Slack body and escaping.
 */
import { ConfigurationError, MemoryStore } from '@ext/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalDesk, type ApprovalDesk } from '../desk.js';
import type { ApprovalRecord, ApprovalRequestInput } from '../record.js';
import { newWebhookSecret, serveFetch, startReceiver, type Receiver } from './http-test-fixtures.js';
import { approvalWebhooks, type ApprovalWebhooks, type ApprovalWebhooksOptions } from './index.js';
import { newLinkNonce, signLinkToken } from './link-token.js';

const LINK_SECRET = 'link-secret-0123456789abcdef-0123456789';
const CSP = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function input(overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput {
  return {
    principal: 'agent-1',
    tool: 'delete_file',
    argsDigest: 'digest-a',
    toolDigest: 'tool-1',
    riskLevel: 'destructive',
    message: 'Delete a.txt',
    arguments: { path: 'a.txt' },
    ...overrides,
  };
}

interface Harness {
  readonly desk: ApprovalDesk;
  readonly webhooks: ApprovalWebhooks;
  readonly receiver: Receiver;
  readonly linkBaseUrl: string;
  readonly warnings: { message: string; details: Record<string, unknown> | undefined }[];
}

interface HarnessOptions {
  readonly respond?: (n: number) => number;
  readonly now?: () => number;
  readonly deskTtlSeconds?: number;
  readonly webhooks?: Partial<ApprovalWebhooksOptions>;
  readonly format?: 'standard' | 'slack';
}

async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const store = new MemoryStore();
  const receiver = await startReceiver(options.respond === undefined ? {} : { respond: options.respond });
  cleanups.push(receiver.close);
  // Both closures run only after the consts below exist (the desk and the links are made for each other).
  const server = await serveFetch((request) => webhooks.links.fetch(request));
  cleanups.push(server.close);
  const linkBaseUrl = `${server.origin}/approvals/links`;
  const warnings: Harness['warnings'] = [];
  const webhooks = approvalWebhooks({
    endpoints: [{ url: receiver.url, secret: receiver.secret, format: options.format ?? 'standard' }],
    linkBaseUrl,
    linkSecret: LINK_SECRET,
    store,
    desk: () => desk,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...options.webhooks,
  });
  const told = approvalDesk({
    store,
    backends: [webhooks.backend],
    logger: { warn: (message, details) => warnings.push({ message, details }) },
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.deskTtlSeconds === undefined ? {} : { ttlSeconds: options.deskTtlSeconds }),
  });
  // The desk tells its backends in the background: these tests read the deliveries once they ended.
  const desk: ApprovalDesk = {
    ...told,
    open: async (input) => {
      const opened = await told.open(input);
      await told.drain();
      return opened;
    },
    decide: async (id, decision) => {
      const decided = await told.decide(id, decision);
      await told.drain();
      return decided;
    },
  };
  return { desk, webhooks, receiver, linkBaseUrl, warnings };
}

interface RequestedPayload {
  readonly type: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown> & { readonly actions: { readonly approve: string; readonly deny: string } };
}

function requested(receiver: Receiver, index = 0): RequestedPayload {
  const delivery = receiver.deliveries[index];
  expect(delivery?.verified).toBe(true);
  return delivery?.payload as RequestedPayload;
}

async function open(h: Harness, overrides: Partial<ApprovalRequestInput> = {}) {
  const { record } = await h.desk.open(input(overrides));
  const payload = requested(h.receiver, h.receiver.deliveries.length - 1);
  return { record, links: payload.data.actions };
}

const post = (url: string, init: RequestInit = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'reason=looks+fine',
    ...init,
  });
const postJson = (url: string, body: unknown = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function stateOf(desk: ApprovalDesk, id: string): Promise<ApprovalRecord> {
  const record = await desk.get(id);
  if (record === undefined) throw new Error(`no record ${id}`);
  return record;
}

function decisions(record: ApprovalRecord): string[] {
  return record.trail.filter((entry) => entry.event === 'approved' || entry.event === 'denied').map((e) => e.event);
}

describe('approval webhooks: delivery', () => {
  it('sends approval.requested signed per Standard Webhooks; a tampered body fails verification', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    expect(h.receiver.deliveries).toHaveLength(1);
    const [delivery] = h.receiver.deliveries;
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(delivery?.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(delivery?.headers['webhook-signature']).toMatch(/^v1,/);
    const payload = requested(h.receiver);
    expect(payload).toMatchObject({
      type: 'approval.requested',
      data: {
        id: record.id,
        state: 'pending',
        tool: 'delete_file',
        principal: 'agent-1',
        risk_level: 'destructive',
        message: 'Delete a.txt',
        arguments: { path: 'a.txt' },
      },
    });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(links.approve.startsWith(`${h.linkBaseUrl}/`)).toBe(true);
    expect(links.deny.startsWith(`${h.linkBaseUrl}/`)).toBe(true);
    expect(links.approve).not.toBe(links.deny);

    const body = delivery?.body ?? '';
    const headers = delivery?.headers ?? {};
    const verifier = new Webhook(h.receiver.secret);
    expect(() => verifier.verify(body.replace('a.txt', 'b.txt'), headers)).toThrow(/signature/i);
    expect(() => verifier.verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(/signature/i);
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/signature/i);
  });

  it('sends approval.decided without action links once a request is decided', async () => {
    const h = await harness();
    const { record } = await open(h);
    await h.desk.decide(record.id, { approve: false, by: 'alice', reason: 'not today' });
    expect(h.receiver.deliveries).toHaveLength(2);
    const decided = h.receiver.deliveries[1];
    expect(decided?.verified).toBe(true);
    expect(decided?.headers['webhook-id']).not.toBe(h.receiver.deliveries[0]?.headers['webhook-id']);
    expect(decided?.payload).toMatchObject({
      type: 'approval.decided',
      data: { id: record.id, state: 'denied', decided_by: 'alice', reason: 'not today' },
    });
    expect((decided?.payload as { data: object }).data).not.toHaveProperty('actions');
  });

  it('tries again after a 500, under the same webhook-id, and stops at the first success', async () => {
    const h = await harness({ respond: (n) => (n === 0 ? 500 : 204) });
    await open(h);
    expect(h.receiver.deliveries.map((d) => d.status)).toEqual([500, 204]);
    expect(h.receiver.deliveries.every((d) => d.verified)).toBe(true);
    const [first, second] = h.receiver.deliveries;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.body).toBe(first?.body);
    expect(h.warnings).toEqual([]);
  });

  it('tries again after a 429, but never after a 400; a failed delivery leaves the request pending', async () => {
    const throttled = await harness({ respond: (n) => (n === 0 ? 429 : 204) });
    await open(throttled);
    expect(throttled.receiver.deliveries.map((d) => d.status)).toEqual([429, 204]);

    const h = await harness({ respond: () => 400 });
    const { record, created } = await h.desk.open(input());
    expect(created).toBe(true);
    expect(h.receiver.deliveries).toHaveLength(1);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]?.message).toContain('webhooks approver backend failed');
    expect(String(h.warnings[0]?.details?.error)).toContain('answered 400');
    expect((await stateOf(h.desk, record.id)).state).toBe('pending');
  });

  it('gives up after `attempts` 5xx answers, all under one webhook-id, and says so', async () => {
    const h = await harness({ respond: () => 503, webhooks: { attempts: 3 } });
    await h.desk.open(input());
    expect(h.receiver.deliveries.map((d) => d.status)).toEqual([503, 503, 503]);
    expect(new Set(h.receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(String(h.warnings[0]?.details?.error)).toMatch(/failed after 3 attempt\(s\): answered 503/);
  });

  it('tries again after a timeout or a network error', async () => {
    const seen: { id: string | null; signal: AbortSignal | null | undefined }[] = [];
    const flaky: typeof fetch = (_url, init) => {
      const headers = new Headers(init?.headers);
      seen.push({ id: headers.get('webhook-id'), signal: init?.signal });
      if (seen.length === 1) {
        // Never answers: only the per-attempt timeout ends it.
        return new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => {
            reject(init.signal?.reason as Error);
          });
        });
      }
      if (seen.length === 2) return Promise.reject(new TypeError('fetch failed'));
      return Promise.resolve(new Response(null, { status: 200 }));
    };
    const h = await harness({ webhooks: { fetch: flaky, timeoutMs: 50, attempts: 3 } });
    await h.desk.open(input());
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.id)).size).toBe(1);
    expect(h.warnings).toEqual([]);
  });
});

describe('approval webhooks: decision links', () => {
  it('the receiver follows the approve link (POST): the request is approved by "signed link"', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    const response = await post(links.approve);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CSP);
    const html = await response.text();
    expect(html).toContain('Approved');
    const after = await stateOf(h.desk, record.id);
    expect(after).toMatchObject({ state: 'approved', decided_by: 'signed link', reason: 'looks fine' });
    const decided = h.receiver.deliveries[1];
    expect(decided?.verified).toBe(true);
    expect(decided?.payload).toMatchObject({ type: 'approval.decided', data: { state: 'approved' } });
  });

  it('answers JSON to a program: { decided } or { error }', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    const response = await postJson(links.deny, { reason: 'no' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ decided: { id: record.id, state: 'denied' } });
    expect((await stateOf(h.desk, record.id)).reason).toBe('no');
    const again = await postJson(links.deny);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: { code: 'APPROVAL_LINK_USED', message: expect.any(String) as string },
    });
  });

  it('refuses a replayed link (409) and decides nothing twice', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    expect((await post(links.approve)).status).toBe(200);
    const replay = await post(links.approve);
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain('already used');
    const after = await stateOf(h.desk, record.id);
    expect(decisions(after)).toEqual(['approved']);
    expect(
      h.receiver.deliveries.filter((d) => (d.payload as { type: string }).type === 'approval.decided'),
    ).toHaveLength(1);
  });

  it('refuses the deny link once the approve link was used, and the other way round (409)', async () => {
    const h = await harness();
    const first = await open(h);
    expect((await post(first.links.approve)).status).toBe(200);
    const deny = await post(first.links.deny);
    expect(deny.status).toBe(409);
    expect(await deny.text()).toContain('other decision link');
    expect(await fetch(first.links.deny).then((r) => r.status)).toBe(409);
    expect((await stateOf(h.desk, first.record.id)).state).toBe('approved');

    const second = await open(h, { argsDigest: 'digest-b' });
    expect((await post(second.links.deny)).status).toBe(200);
    expect((await post(second.links.approve)).status).toBe(409);
    expect(decisions(await stateOf(h.desk, second.record.id))).toEqual(['denied']);
  });

  it('refuses a link whose id was changed (re-encoded payload, old signature) with 403', async () => {
    const h = await harness();
    const mine = await open(h);
    const other = await open(h, { argsDigest: 'digest-b', principal: 'agent-2' });
    const token = mine.links.approve.slice(h.linkBaseUrl.length + 1);
    const [payload = '', signature = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, id: other.record.id })).toString('base64url');
    const url = `${h.linkBaseUrl}/${forged}.${signature}`;
    expect((await fetch(url)).status).toBe(403);
    const response = await post(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('not valid');
    expect((await stateOf(h.desk, other.record.id)).state).toBe('pending');
    expect((await stateOf(h.desk, mine.record.id)).state).toBe('pending');
    // The real link still works: a refused forgery spent nothing.
    expect((await post(mine.links.approve)).status).toBe(200);
  });

  it('refuses an expired link with 410, on GET and POST', async () => {
    let clock = Date.now();
    const h = await harness({ now: () => clock, webhooks: { linkTtlSeconds: 60 } });
    const { record, links } = await open(h);
    clock += 61_000;
    expect((await fetch(links.approve)).status).toBe(410);
    const response = await post(links.approve);
    expect(response.status).toBe(410);
    expect(await response.text()).toContain('expired');
    expect((await stateOf(h.desk, record.id)).state).toBe('pending');
  });

  it('never lets a link outlive its request', async () => {
    const h = await harness({ deskTtlSeconds: 30 });
    const { record, links } = await open(h);
    const token = links.approve.slice(h.linkBaseUrl.length + 1);
    const claims = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { exp: number };
    expect(claims.exp).toBe(Math.floor(record.expires_at / 1000));
  });

  it('refuses a link to a request decided elsewhere with 409 naming the state', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    await h.desk.decide(record.id, { approve: false, by: 'alice' });
    const page = await fetch(links.approve);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain('already denied');
    const response = await post(links.approve);
    expect(response.status).toBe(409);
    expect(await response.text()).toContain('already denied');
    const json = await postJson(links.deny);
    expect(await json.json()).toMatchObject({ error: { code: 'APPROVAL_ALREADY_DECIDED' } });
    expect(decisions(await stateOf(h.desk, record.id))).toEqual(['denied']);
  });

  it('refuses a link to a request that expired with 409 APPROVAL_EXPIRED', async () => {
    let clock = Date.now();
    const h = await harness({ now: () => clock, deskTtlSeconds: 120, webhooks: { linkTtlSeconds: 900 } });
    const { record } = await open(h);
    // A link minted with a longer life than the request's (as by another instance's clock) meets the desk's refusal.
    const exp = Math.floor(clock / 1000) + 900;
    const token = signLinkToken(
      { id: record.id, decision: 'approve', exp, nonce: newLinkNonce() },
      Buffer.from(LINK_SECRET),
    );
    clock += 121_000;
    const response = await postJson(`${h.linkBaseUrl}/${token}`);
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: 'APPROVAL_EXPIRED' } });
  });

  it('answers 404 for a signed link to an unknown request', async () => {
    const h = await harness();
    await open(h);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const token = signLinkToken(
      { id: 'no-such-id', decision: 'approve', exp, nonce: newLinkNonce() },
      Buffer.from(LINK_SECRET),
    );
    expect((await fetch(`${h.linkBaseUrl}/${token}`)).status).toBe(404);
    const response = await postJson(`${h.linkBaseUrl}/${token}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
  });

  it('GET shows what will be decided, with strict headers, and decides nothing', async () => {
    const h = await harness();
    const { record, links } = await open(h);
    for (let i = 0; i < 3; i++) {
      const page = await fetch(links.deny);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toBe(CSP);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await page.text();
      expect(html).toContain('<form method="post">');
      expect(html).toContain('name="reason"');
      expect(html.match(/<button/g)).toHaveLength(1);
      expect(html).toContain('<button type="submit">Deny</button>');
      for (const fact of ['delete_file', 'agent-1', 'destructive', 'Delete a.txt']) expect(html).toContain(fact);
      expect(html).not.toMatch(/<style|<script|style=/);
    }
    expect((await fetch(links.deny, { method: 'HEAD' })).status).toBe(200);
    expect((await stateOf(h.desk, record.id)).state).toBe('pending');
    expect(h.receiver.deliveries).toHaveLength(1);
    // The link is still good after being looked at.
    expect((await post(links.deny)).status).toBe(200);
  });

  it('escapes hostile values in the page', async () => {
    const h = await harness();
    const { links } = await open(h, {
      tool: '<script>alert(1)</script>',
      principal: '"><img src=x onerror=alert(1)>',
      message: "<b>bold</b> & 'quoted'",
      arguments: { path: '</pre><script>alert(2)</script>' },
    });
    const html = await (await fetch(links.approve)).text();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt; &amp; &#39;quoted&#39;');
    const done = await post(links.approve);
    const decided = await done.text();
    expect(decided).not.toContain('<script');
  });

  it('handles only paths under linkBaseUrl, and refuses other methods', async () => {
    const h = await harness();
    const { links } = await open(h);
    expect(await h.webhooks.links.fetch(new Request('http://gw.example/elsewhere'))).toBeUndefined();
    expect(await h.webhooks.links.fetch(new Request('http://gw.example/approvals/links'))).toBeUndefined();
    expect(await h.webhooks.links.fetch(new Request('http://gw.example/approvals/linksX/a.b'))).toBeUndefined();
    expect((await h.webhooks.links.fetch(new Request('http://gw.example/approvals/links/a/b')))?.status).toBe(404);
    const put = await fetch(links.approve, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    const tooLong = await post(links.approve, { body: `reason=${'x'.repeat(20_000)}` });
    expect(tooLong.status).toBe(413);
    // Neither spent the link.
    expect((await post(links.approve)).status).toBe(200);
  });
});

describe('approval webhooks: Slack', () => {
  it('sends a signed Slack message with the facts, the arguments in a code block and two link buttons', async () => {
    const h = await harness({ format: 'slack' });
    const { record } = await h.desk.open(input({ arguments: { path: 'a.txt', blob: 'z'.repeat(10_000) } }));
    const delivery = h.receiver.deliveries[0];
    expect(delivery?.verified).toBe(true);
    expect(delivery?.headers['webhook-id']).toMatch(/^msg_/);
    const message = delivery?.payload as {
      text: string;
      blocks: { type: string; text?: { type: string; text: string }; elements?: Record<string, unknown>[] }[];
    };
    expect(message.text).toContain('delete_file');
    const sections = message.blocks.filter((b) => b.type === 'section');
    expect(sections).toHaveLength(2);
    const facts = sections[0]?.text?.text ?? '';
    for (const fact of ['delete_file', 'agent-1', 'destructive', 'Delete a.txt']) expect(facts).toContain(fact);
    const args = sections[1]?.text?.text ?? '';
    expect(args).toMatch(/```[\s\S]*a\.txt[\s\S]*…```$/);
    for (const section of sections) expect(section.text?.text.length).toBeLessThanOrEqual(3000);
    const actions = message.blocks.find((b) => b.type === 'actions');
    expect(actions?.elements).toEqual([
      expect.objectContaining({ type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary' }),
      expect.objectContaining({ type: 'button', text: { type: 'plain_text', text: 'Deny' }, style: 'danger' }),
    ]);
    const approve = actions?.elements?.[0]?.url as string;
    expect(approve.startsWith(`${h.linkBaseUrl}/`)).toBe(true);
    expect((await post(approve)).status).toBe(200);
    expect((await stateOf(h.desk, record.id)).state).toBe('approved');
    const decided = h.receiver.deliveries[1]?.payload as { text: string; blocks: { type: string }[] };
    expect(decided.text).toContain('approved by signed link');
    expect(decided.blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('escapes Slack control characters in hostile values', async () => {
    const h = await harness({ format: 'slack' });
    await h.desk.open(
      input({
        tool: '<!channel>',
        principal: '<@U123> & <https://evil.example|click here>',
        message: '<!here> ```break``` &amp;',
        arguments: { note: '```</code><!everyone>' },
      }),
    );
    const body = h.receiver.deliveries[0]?.body ?? '';
    const message = JSON.parse(body) as { text: string; blocks: { text?: { text: string } }[] };
    const texts = [message.text, ...message.blocks.flatMap((b) => (b.text === undefined ? [] : [b.text.text]))];
    for (const text of texts) {
      expect(text).not.toMatch(/<[!@#h]/);
      expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
    }
    expect(message.text).toContain('&lt;!channel&gt;');
    expect(texts.join('\n')).toContain('&lt;@U123&gt; &amp; &lt;https://evil.example|click here&gt;');
    expect(texts.join('\n')).toContain('&amp;amp;');
    // The arguments cannot close their code block early.
    const args = message.blocks[1]?.text?.text ?? '';
    expect(args.match(/```/g)).toHaveLength(2);
  });
});

describe('approvalWebhooks options', () => {
  const base = (): ApprovalWebhooksOptions => ({
    endpoints: [{ url: 'https://hooks.example/a', secret: newWebhookSecret() }],
    linkBaseUrl: 'https://gw.example/approvals/links',
    linkSecret: LINK_SECRET,
    store: new MemoryStore(),
  });
  it.each([
    ['endpoints', { endpoints: [] }],
    ['endpoints[0].url', { endpoints: [{ url: 'ftp://x', secret: newWebhookSecret() }] }],
    ['endpoints[0].secret', { endpoints: [{ url: 'https://x.example', secret: 'plain-secret' }] }],
    ['endpoints[0].secret', { endpoints: [{ url: 'https://x.example', secret: 'whsec_c2hvcnQ=' }] }],
    ['endpoints[0].format', { endpoints: [{ url: 'https://x.example', secret: newWebhookSecret(), format: 'xml' }] }],
    ['linkBaseUrl', { linkBaseUrl: 'not a url' }],
    ['linkBaseUrl', { linkBaseUrl: 'https://gw.example/links?x=1' }],
    ['linkSecret', { linkSecret: 'too short' }],
    ['linkTtlSeconds', { linkTtlSeconds: 0 }],
    ['timeoutMs', { timeoutMs: -1 }],
    ['attempts', { attempts: 1.5 }],
    ['store', { store: undefined }],
  ])('refuse a bad %s', (option, override) => {
    const options = { ...base(), ...override } as unknown as ApprovalWebhooksOptions;
    let thrown: unknown;
    try {
      approvalWebhooks(options);
    } catch (error) {
      thrown = error;
    }
    expect(ConfigurationError.isInstance(thrown)).toBe(true);
    expect((thrown as ConfigurationError).code).toBe('INVALID_OPTION');
    expect((thrown as Error).message).toContain(`approvalWebhooks: ${option}`);
  });
});
