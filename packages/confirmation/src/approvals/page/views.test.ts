import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PAGE_CSS } from './assets/page-css.js';
import { PAGE_JS } from './assets/page-js.js';
import { escapeHtml, safeHtml } from './html.js';
import { holdCall, pageFixture, signIn } from './test-fixtures.js';

const ORIGIN = 'http://127.0.0.1:8080';
const HOSTILE_TOOL = '<script>alert("tool")</script>';
const HOSTILE_ARGUMENT = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>';
const HOSTILE_REASON = '"><script>alert(3)</script>';
const HOSTILE_PRINCIPAL = "<b onmouseover='alert(4)'>agent</b>";

/** Every start tag in the markup (escaped text has no raw `<`). */
function tagsOf(markup: string): string[] {
  return markup.match(/<[a-zA-Z][^>]*>/g) ?? [];
}

async function pageHtml(path = '/approvals'): Promise<{ html: string; response: Response; ids: string[] }> {
  const fixture = pageFixture();
  const pending = await holdCall(fixture.desk, {
    tool: HOSTILE_TOOL,
    principal: HOSTILE_PRINCIPAL,
    message: 'Run <script>alert(5)</script> & friends',
    arguments: { note: HOSTILE_ARGUMENT, 'key"><script>': 1 },
  });
  const decided = await holdCall(fixture.desk, { tool: 'decided_tool' });
  await fixture.desk.decide(decided.id, { approve: false, by: 'eve<script>', reason: HOSTILE_REASON });
  const signedIn = await signIn(fixture.page, ORIGIN);
  const response = await fixture.page.fetch(new Request(`${ORIGIN}${path}`, { headers: { cookie: signedIn.cookie } }));
  if (response === undefined) throw new Error('not a page path');
  return { html: await response.clone().text(), response, ids: [pending.id, decided.id] };
}

describe('the approvals page HTML', () => {
  it('escapes every value from a caller: tool names, arguments, messages, principals and reasons', async () => {
    const { html: page, response } = await pageHtml();
    expect(response.status).toBe(200);
    const tags = tagsOf(page);
    expect(tags.filter((tag) => tag.startsWith('<script'))).toHaveLength(1);
    expect(tags.filter((tag) => /^<(?:img|b)\b/.test(tag))).toEqual([]);
    expect(tags.filter((tag) => /\son[a-z]+=/i.test(tag))).toEqual([]);
    expect(page).toContain(escapeHtml(HOSTILE_TOOL));
    expect(page).toContain('&lt;script&gt;alert(&quot;tool&quot;)&lt;/script&gt;');
    expect(page).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
    expect(page).toContain('&lt;b onmouseover=&#39;alert(4)&#39;&gt;agent&lt;/b&gt;');
    expect(page).toContain('Run &lt;script&gt;alert(5)&lt;/script&gt; &amp; friends');
    expect(page).toContain('eve&lt;script&gt;');
  });

  it('has no inline script, style or event handler', async () => {
    const { html: page } = await pageHtml();
    expect(page).toMatch(/<script src="\/approvals\/assets\/page\.js\?v=[\w-]+" defer><\/script>/);
    const tags = tagsOf(page);
    expect(tags.filter((tag) => tag.startsWith('<script') && !tag.includes(' src='))).toEqual([]);
    expect(tags.filter((tag) => /^<style|\sstyle=|\son[a-z]+=/i.test(tag))).toEqual([]);
    expect(page).toMatch(/<link rel="stylesheet" href="\/approvals\/assets\/page\.css\?v=[\w-]+">/);
  });

  it('carries the security headers on every HTML answer', async () => {
    const { response } = await pageHtml();
    const fixture = pageFixture();
    const signInForm = await fixture.page.fetch(new Request(`${ORIGIN}/approvals/sign-in`));
    const missing = await fixture.page.fetch(new Request(`${ORIGIN}/approvals/nothing/here`));
    for (const answer of [response, signInForm, missing]) {
      expect(answer?.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer?.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(answer?.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer?.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer?.headers.get('cache-control')).toBe('no-store');
      expect(answer?.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('renders the CSRF token, the signed-in principal, pending cards and decided ones with their trail', async () => {
    const { html: page, ids } = await pageHtml();
    expect(page).toMatch(/<meta name="csrf-token" content="[A-Za-z0-9_-]{43}">/);
    expect(page).toContain('<strong class="principal" title="alice@example.com">alice@example.com</strong>');
    expect(page).toMatch(/<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/);
    expect(page).toContain(`data-id="${ids[0] ?? ''}" data-state="pending"`);
    expect(page).toContain('waiting under a minute');
    expect(page).toContain('expires in 15 min');
    expect(page).toContain('class="btn approve" data-decision="approve"');
    expect(page).toContain(`data-id="${ids[1] ?? ''}" data-state="denied"`);
    expect(page).toContain('28 Nov, 09:00:00 UTC');
    expect(page).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z</);
  });

  it('marks the request its address names', async () => {
    const fixture = pageFixture();
    const record = await holdCall(fixture.desk);
    const signedIn = await signIn(fixture.page, ORIGIN);
    const response = await fixture.page.fetch(
      new Request(`${ORIGIN}/approvals/${record.id}`, { headers: { cookie: signedIn.cookie } }),
    );
    const page = (await response?.text()) ?? '';
    expect(page).toContain(`data-focus="${record.id}"`);
    expect(page).toContain('class="card pending risk-destructive focused"');
  });

  it('says so when nothing is waiting', async () => {
    const fixture = pageFixture();
    const signedIn = await signIn(fixture.page, ORIGIN);
    const page =
      (await (
        await fixture.page.fetch(new Request(`${ORIGIN}/approvals`, { headers: { cookie: signedIn.cookie } }))
      )?.text()) ?? '';
    expect(page).toContain('<div class="empty" id="pending-empty">');
    expect(page).toContain('Nothing is waiting for you');
  });
});

describe('the safeHtml template', () => {
  it('escapes text and numbers, keeps markup made by safeHtml, and drops undefined and false', () => {
    const inner = safeHtml`<b>${'<i>'}</b>`;
    expect(safeHtml`<p title="${'"x"'}">${inner}${[inner, inner]}${3}${undefined}${false}</p>`.markup).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b><b>&lt;i&gt;</b><b>&lt;i&gt;</b>3</p>',
    );
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});

describe('the page assets', () => {
  it('serves the script and style sheet with their types, nosniff, and caching by digest', async () => {
    const { page } = pageFixture();
    const script = await page.fetch(new Request(`${ORIGIN}/approvals/assets/page.js`));
    expect(script?.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script?.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script?.headers.get('cache-control')).toBe('no-cache');
    expect(await script?.text()).toBe(PAGE_JS);
    const style = await page.fetch(new Request(`${ORIGIN}/approvals/assets/page.css`));
    expect(style?.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style?.text()).toBe(PAGE_CSS);
    const { html: markup } = await pageHtml();
    const versioned = /src="(\/approvals\/assets\/page\.js\?v=[\w-]+)"/.exec(markup)?.[1] ?? '';
    const cached = await page.fetch(new Request(`${ORIGIN}${versioned}`));
    expect(cached?.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('ships a script that parses and builds DOM from data with textContent only', () => {
    expect(() => new Script(PAGE_JS)).not.toThrow();
    expect(PAGE_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(PAGE_JS).not.toMatch(/\.style\.|setAttribute\('style'/);
  });
});
