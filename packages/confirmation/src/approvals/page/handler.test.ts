import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@ext/core';
import { secretDigest } from '../../records.js';
import { approvalsPage } from './handler.js';
import {
  APPROVER_KEY,
  authenticate,
  holdCall,
  pageFixture,
  READER_KEY,
  signIn,
  type PageFixture,
} from './test-fixtures.js';

const ORIGIN = 'http://127.0.0.1:8080';

async function call(fixture: PageFixture, path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fixture.page.fetch(new Request(`${ORIGIN}${path}`, init));
  if (response === undefined) throw new Error(`${path} is not a page path`);
  return response;
}

function decision(
  signedIn: { cookie: string; csrf?: string } | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signedIn === undefined ? {} : { cookie: signedIn.cookie }),
      ...(signedIn?.csrf === undefined ? {} : { 'x-csrf-token': signedIn.csrf }),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

const EXPECTED_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

function expectPageHeaders(response: Response): void {
  for (const [name, value] of Object.entries(EXPECTED_HEADERS)) expect(response.headers.get(name), name).toBe(value);
}

describe('approvalsPage: routes', () => {
  it('leaves any path outside its base path to the server', async () => {
    const { page } = pageFixture();
    expect(await page.fetch(new Request(`${ORIGIN}/mcp`))).toBeUndefined();
    expect(await page.fetch(new Request(`${ORIGIN}/approvalsX`))).toBeUndefined();
    expect(await page.fetch(new Request(`${ORIGIN}/`))).toBeUndefined();
  });

  it('answers 404 under its base path for what it does not serve, 405 for a wrong method', async () => {
    const fixture = pageFixture();
    expect((await call(fixture, '/approvals/no/such/page')).status).toBe(404);
    expect((await call(fixture, '/approvals/assets/other.js')).status).toBe(404);
    const wrong = await call(fixture, '/approvals/sign-out');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('serves under another base path', async () => {
    const fixture = pageFixture({ basePath: '/ops/approvals' });
    const response = await call(fixture, '/ops/approvals');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/ops/approvals/sign-in');
    expect(await fixture.page.fetch(new Request(`${ORIGIN}/approvals`))).toBeUndefined();
  });
});

describe('approvalsPage: who may use it', () => {
  it('sends a browser that is not signed in to the sign-in form, back to the request it asked for', async () => {
    const fixture = pageFixture();
    const page = await call(fixture, '/approvals');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/approvals/sign-in');
    const record = await holdCall(fixture.desk);
    const one = await call(fixture, `/approvals/${record.id}`);
    expect(one.headers.get('location')).toBe(
      `/approvals/sign-in?next=${encodeURIComponent(`/approvals/${record.id}`)}`,
    );
    const form = await call(fixture, '/approvals/sign-in');
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('name="token"');
  });

  it('answers the API 401 without a session or a header, and 401 for a key it does not know', async () => {
    const fixture = pageFixture();
    const anonymous = await call(fixture, '/approvals/api/requests');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    const unknown = await call(fixture, '/approvals/api/requests', { headers: { authorization: 'Bearer nope' } });
    expect(unknown.status).toBe(401);
    const events = await call(fixture, '/approvals/api/events');
    expect(events.status).toBe(401);
  });

  it('answers the API 403 naming the scope to a caller without it', async () => {
    const fixture = pageFixture();
    const response = await call(fixture, '/approvals/api/requests', {
      headers: { authorization: `Bearer ${READER_KEY}` },
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('MISSING_SCOPE');
    expect(body.error.message).toContain('approvals:decide');
  });

  it('refuses a sign-in without the scope with a 403 that names it, and opens no session', async () => {
    const fixture = pageFixture();
    const response = await call(fixture, '/approvals/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: new URLSearchParams({ token: READER_KEY }).toString(),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    const html = await response.text();
    expect(html).toContain('bob@example.com');
    expect(html).toContain('<code>approvals:decide</code>');
    expectPageHeaders(response);
  });

  it('shows a 403 page naming the scope to a session without it', async () => {
    const fixture = pageFixture();
    const signedIn = await signIn(fixture.page, ORIGIN);
    const strict = approvalsPage({
      desk: fixture.desk,
      authenticate,
      approverScope: 'approvals:admin',
      now: fixture.now,
    });
    const response = await strict.fetch(new Request(`${ORIGIN}/approvals`, { headers: { cookie: signedIn.cookie } }));
    expect(response?.status).toBe(403);
    const html = (await response?.text()) ?? '';
    expect(html).toContain('approvals:admin');
    expect(html).toContain('alice@example.com');
    expect(html).toContain('/approvals/sign-out');
  });

  it('refuses a key it does not know at sign-in with 401 and does not echo it', async () => {
    const fixture = pageFixture();
    const response = await call(fixture, '/approvals/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=wrong-secret-value',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).not.toContain('wrong-secret-value');
  });
});

describe('approvalsPage: signing in and out', () => {
  it('signs in: an HttpOnly, SameSite=Strict cookie on the page path, and the pasted key is stored nowhere', async () => {
    const fixture = pageFixture();
    const response = await call(fixture, '/approvals/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: new URLSearchParams({ token: APPROVER_KEY }).toString(),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/approvals');
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^approvals=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/approvals; HttpOnly; SameSite=Strict$/,
    );
    const id = /^approvals=([^;]+)/.exec(setCookie)?.[1] ?? '';
    const written = JSON.stringify(fixture.store.writes);
    expect(written).not.toContain(APPROVER_KEY);
    expect(written).not.toContain(id);
    const sessionWrite = fixture.store.writes.find((write) => write.key.includes(':approval-session:'));
    expect(sessionWrite?.key).toBe(`confirmation:approval-session:${secretDigest(id)}`);
    expect(sessionWrite?.value).toMatchObject({
      principal: 'alice@example.com',
      scopes: ['tools:call', 'approvals:decide'],
    });
  });

  it('uses a __Host- cookie (Secure, Path=/) over https', async () => {
    const fixture = pageFixture();
    const signedIn = await signIn(fixture.page, 'https://approvals.example.com');
    expect(signedIn.setCookie).toMatch(
      /^__Host-approvals=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; Secure; HttpOnly; SameSite=Strict$/,
    );
    const page = await fixture.page.fetch(
      new Request('https://approvals.example.com/approvals', { headers: { cookie: signedIn.cookie } }),
    );
    expect(page?.status).toBe(200);
  });

  it('returns to the request the browser asked for, and ignores a next that leaves the page', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const post = (next: string) =>
      call(fixture, '/approvals/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: APPROVER_KEY, next }).toString(),
      });
    expect((await post(`/approvals/${record.id}`)).headers.get('location')).toBe(`/approvals/${record.id}`);
    expect((await post('//evil.example/approvals')).headers.get('location')).toBe('/approvals');
    expect((await post('https://evil.example/')).headers.get('location')).toBe('/approvals');
  });

  it('refuses a sign-in posted from another site', async () => {
    const fixture = pageFixture();
    const foreign = await call(fixture, '/approvals/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ token: APPROVER_KEY }).toString(),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
    const crossSite = await call(fixture, '/approvals/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ token: APPROVER_KEY }).toString(),
    });
    expect(crossSite.status).toBe(403);
  });

  it('takes Origin: null only from the same origin (a form posted by a page that sends no referrer)', async () => {
    const fixture = pageFixture();
    const post = (headers: Record<string, string>) =>
      call(fixture, '/approvals/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', ...headers },
        body: new URLSearchParams({ token: APPROVER_KEY }).toString(),
      });
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    expect((await post({})).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-site' })).status).toBe(403);
  });

  it('signs out only with the session CSRF token, and the session is gone afterwards', async () => {
    const fixture = pageFixture();
    const signedIn = await signIn(fixture.page, ORIGIN);
    const form = (csrf: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signedIn.cookie, origin: ORIGIN },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect((await call(fixture, '/approvals/sign-out', form('x'.repeat(43)))).status).toBe(403);
    expect((await call(fixture, '/approvals', { headers: { cookie: signedIn.cookie } })).status).toBe(200);
    const out = await call(fixture, '/approvals/sign-out', form(signedIn.csrf));
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/approvals/sign-in?signed-out=1');
    expect(out.headers.get('set-cookie')).toMatch(
      /^approvals=; Max-Age=0; Path=\/approvals; HttpOnly; SameSite=Strict$/,
    );
    const after = await call(fixture, '/approvals/api/requests', { headers: { cookie: signedIn.cookie } });
    expect(after.status).toBe(401);
  });

  it('ends a browser sign-in after sessionSeconds', async () => {
    const fixture = pageFixture({ sessionSeconds: 60 });
    const signedIn = await signIn(fixture.page, ORIGIN);
    expect(signedIn.setCookie).toContain('Max-Age=60;');
    fixture.advance(61_000);
    expect((await call(fixture, '/approvals', { headers: { cookie: signedIn.cookie } })).status).toBe(303);
  });
});

describe('approvalsPage: deciding', () => {
  it('refuses a decision through the cookie without the CSRF token', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const signedIn = await signIn(fixture.page, ORIGIN);
    const response = await call(
      fixture,
      `/approvals/api/requests/${record.id}/decision`,
      decision({ cookie: signedIn.cookie }, { approve: true }),
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'CSRF_TOKEN_INVALID' } });
    const wrong = await call(
      fixture,
      `/approvals/api/requests/${record.id}/decision`,
      decision({ cookie: signedIn.cookie, csrf: 'A'.repeat(43) }, { approve: true }),
    );
    expect(wrong.status).toBe(403);
    expect((await fixture.desk.get(record.id))?.state).toBe('pending');
  });

  it('decides through the cookie with the CSRF token: the approver is the signed-in principal', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const signedIn = await signIn(fixture.page, ORIGIN);
    const response = await call(
      fixture,
      `/approvals/api/requests/${record.id}/decision`,
      decision(signedIn, { approve: true, reason: '  ticket OPS-12  ', by: 'mallory' }, { origin: ORIGIN }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { request: Record<string, unknown> };
    expect(body.request).toMatchObject({ id: record.id, state: 'approved', decided_by: 'alice@example.com' });
    const stored = await fixture.desk.get(record.id);
    expect(stored).toMatchObject({ state: 'approved', decided_by: 'alice@example.com', reason: 'ticket OPS-12' });
  });

  it('refuses a cookie decision from another origin, or marked cross-site, even with the token', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const signedIn = await signIn(fixture.page, ORIGIN);
    const path = `/approvals/api/requests/${record.id}/decision`;
    const foreign = await call(
      fixture,
      path,
      decision(signedIn, { approve: true }, { origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'FOREIGN_ORIGIN' } });
    const opaque = await call(fixture, path, decision(signedIn, { approve: true }, { origin: 'null' }));
    expect(opaque.status).toBe(403);
    const crossSite = await call(
      fixture,
      path,
      decision(signedIn, { approve: true }, { 'sec-fetch-site': 'cross-site' }),
    );
    expect(crossSite.status).toBe(403);
    expect((await fixture.desk.get(record.id))?.state).toBe('pending');
  });

  it('decides with an Authorization header and no CSRF token (a CLI)', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const response = await call(
      fixture,
      `/approvals/api/requests/${record.id}/decision`,
      decision(undefined, { approve: false, reason: 'not today' }, { authorization: `Bearer ${APPROVER_KEY}` }),
    );
    expect(response.status).toBe(200);
    expect(await fixture.desk.get(record.id)).toMatchObject({
      state: 'denied',
      decided_by: 'alice@example.com',
      reason: 'not today',
    });
  });

  it('answers 409 with the code and the request as it stands when it was already decided or expired', async () => {
    const fixture = pageFixture();
    const auth = { authorization: `Bearer ${APPROVER_KEY}` };
    const record = await holdCall(fixture.desk);
    await fixture.desk.decide(record.id, { approve: false, by: 'carol@example.com' });
    const again = await call(
      fixture,
      `/approvals/api/requests/${record.id}/decision`,
      decision(undefined, { approve: true }, auth),
    );
    expect(again.status).toBe(409);
    const body = (await again.json()) as { error: { code: string; message: string }; request: { state: string } };
    expect(body.error.code).toBe('APPROVAL_ALREADY_DECIDED');
    expect(body.error.message).toBe('This request was already denied by carol@example.com');
    expect(body.request.state).toBe('denied');

    const late = await holdCall(fixture.desk, { tool: 'drop_table' });
    fixture.advance(fixture.desk.ttlMs + 1);
    const expired = await call(
      fixture,
      `/approvals/api/requests/${late.id}/decision`,
      decision(undefined, { approve: true }, auth),
    );
    expect(expired.status).toBe(409);
    expect(await expired.json()).toMatchObject({ error: { code: 'APPROVAL_EXPIRED' }, request: { state: 'expired' } });

    const missing = await call(
      fixture,
      '/approvals/api/requests/nope/decision',
      decision(undefined, { approve: true }, auth),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'APPROVAL_NOT_FOUND' } });
  });

  it('refuses a body that is not a decision', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const auth = { authorization: `Bearer ${APPROVER_KEY}` };
    const path = `/approvals/api/requests/${record.id}/decision`;
    expect((await call(fixture, path, decision(undefined, { approve: 'yes' }, auth))).status).toBe(400);
    expect(
      (await call(fixture, path, decision(undefined, { approve: true, reason: 'x'.repeat(501) }, auth))).status,
    ).toBe(400);
    const form = await call(fixture, path, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'approve=true',
    });
    expect(form.status).toBe(415);
    const huge = await call(fixture, path, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true, pad: 'x'.repeat(20_000) }),
    });
    expect(huge.status).toBe(413);
    expect((await call(fixture, path, { headers: auth })).status).toBe(405);
    expect((await fixture.desk.get(record.id))?.state).toBe('pending');
  });
});

describe('approvalsPage: reading requests', () => {
  it('lists requests by state and reads one, with the audit trail', async () => {
    const fixture = pageFixture();
    const auth = { headers: { authorization: `Bearer ${APPROVER_KEY}` } };
    const first = await holdCall(fixture.desk, { tool: 'first' });
    const second = await holdCall(fixture.desk, { tool: 'second' });
    await fixture.desk.decide(first.id, { approve: true, by: 'carol@example.com', reason: 'ok' });
    const pending = (await (await call(fixture, '/approvals/api/requests?state=pending', auth)).json()) as {
      requests: { id: string }[];
    };
    expect(pending.requests.map((request) => request.id)).toEqual([second.id]);
    const all = (await (await call(fixture, '/approvals/api/requests', auth)).json()) as { requests: unknown[] };
    expect(all.requests).toHaveLength(2);
    const one = (await (await call(fixture, `/approvals/api/requests/${first.id}`, auth)).json()) as {
      request: Record<string, unknown>;
    };
    expect(one.request).toMatchObject({
      id: first.id,
      state: 'approved',
      decided_by: 'carol@example.com',
      reason: 'ok',
      created_at: '2026-11-28T09:00:00.000Z',
      trail: [
        { event: 'requested', by: 'agent-7', at: '2026-11-28T09:00:00.000Z' },
        { event: 'approved', by: 'carol@example.com', reason: 'ok' },
      ],
    });
    expect((await call(fixture, '/approvals/api/requests?state=maybe', auth)).status).toBe(400);
    expect((await call(fixture, '/approvals/api/requests?limit=0', auth)).status).toBe(400);
    expect((await call(fixture, '/approvals/api/requests/unknown-id', auth)).status).toBe(404);
  });
});

describe('approvalsPage: options', () => {
  it('checks its options when it is made, naming the one that is wrong', () => {
    const { desk } = pageFixture();
    const make = (options: Record<string, unknown>) => () => approvalsPage({ desk, authenticate, ...options });
    for (const [option, value] of [
      ['basePath', 'approvals'],
      ['basePath', '/'],
      ['basePath', '/approvals/'],
      ['approverScope', 'two scopes'],
      ['sessionSeconds', 0],
      ['sessionSeconds', 1.5],
      ['authenticate', 'yes'],
      ['desk', {}],
    ] as const) {
      expect(make({ [option]: value }), `${option}: ${JSON.stringify(value)}`).toThrow(ConfigurationError);
      expect(make({ [option]: value })).toThrow(`approvalsPage: ${option}`);
    }
    expect(make({ basePath: '/ops/approvals', approverScope: 'ops:approve', sessionSeconds: 60 })).not.toThrow();
  });
});
