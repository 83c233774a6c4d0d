/**
 * The page in a real headless Chromium: sign in through the form, decide a
 * request, see requests arrive and leave without a reload, fall back to
 * polling, and show a refusal inline; no console error or CSP violation on
 * the way. Screenshots go to /tmp/approvals-page-*.png for a person to look at.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVER_KEY, holdCall, pageFixture, servePage, type PageFixture } from './test-fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const TITLE = HAVE_CHROMIUM
  ? 'the approvals page in headless Chromium'
  : `the approvals page in headless Chromium (skipped: no Chromium at ${CHROMIUM}; set CHROMIUM_PATH)`;

/** Console errors, page errors and CSP violations a page reported. */
function watchProblems(page: Page, problems: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
}

async function newPage(browser: Browser, width: number, height: number, problems: string[]) {
  const context: BrowserContext = await browser.newContext({
    viewport: { width, height },
    ...(width < 600 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  // Reported through the console, like any other problem (init scripts are not subject to the page's CSP).
  await context.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (event) => " +
      "console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI));",
  });
  const page = await context.newPage();
  watchProblems(page, problems);
  return { context, page };
}

/** A full-page screenshot at `path`, and the page in screen-high slices beside it (`-part-1.png`, ...) for a person to read. */
async function screenshots(page: Page, path: string): Promise<void> {
  await page.screenshot({ path, fullPage: true });
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  for (let top = 0, part = 1; top < height; top += viewport.height, part += 1) {
    const clip = { x: 0, y: top, width: viewport.width, height: Math.min(viewport.height, height - top) };
    await page.screenshot({ path: path.replace(/\.png$/, `-part-${part}.png`), fullPage: true, clip });
  }
}

async function signInThroughForm(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/approvals`);
  await expect.poll(() => page.url()).toBe(`${origin}/approvals/sign-in`);
  await page.fill('#token', APPROVER_KEY);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/approvals`);
}

async function seed(fixture: PageFixture) {
  const long = await holdCall(fixture.desk, {
    tool: 'github__repositories__delete_repository_with_all_branches_and_release_artifacts',
    principal: 'deploy-agent@ci.acme-corporation.internal',
    message: 'Delete the repository acme/website-2019-archive and everything in it. This cannot be undone.',
    arguments: {
      repository: 'acme/website-2019-archive',
      confirm_name: 'acme/website-2019-archive',
      reason_from_agent: 'Cleanup after migration. '.repeat(8).trim(),
      token_scope_hint: 'x'.repeat(180),
      options: { force: true, include_forks: false, notify: ['ops@acme.example', 'security@acme.example'] },
    },
  });
  await holdCall(fixture.desk, {
    tool: 'restart_service',
    principal: 'oncall-bot',
    riskLevel: 'reversible',
    message: 'Restart the payments-api service in eu-west-1',
    arguments: { service: 'payments-api', region: 'eu-west-1' },
  });
  const denied = await holdCall(fixture.desk, { tool: 'drop_table', message: 'Drop the table orders_2024' });
  await fixture.desk.decide(denied.id, {
    approve: false,
    by: 'carol@example.com',
    reason: 'Still read by the finance reports',
  });
  const approved = await holdCall(fixture.desk, {
    tool: 'send_invoice',
    riskLevel: 'safe',
    message: 'Send invoice INV-2291 to ACME Ltd',
    arguments: { invoice: 'INV-2291' },
  });
  await fixture.desk.decide(approved.id, { approve: true, by: 'dave@example.com' });
  return long;
}

describe.skipIf(!HAVE_CHROMIUM)(TITLE, () => {
  let browser: Browser;
  let fixture: PageFixture;
  let served: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    fixture = pageFixture({}, true);
    served = await servePage(fixture.page);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser.close();
    await served.close();
  });

  it('signs in, decides a request, and shows requests that arrive without a reload', async () => {
    const problems: string[] = [];
    const target = await seed(fixture);
    const { context, page } = await newPage(browser, 1280, 900, problems);
    await page.goto(`${served.origin}/approvals/sign-in`);
    await page.screenshot({ path: '/tmp/approvals-page-sign-in-1280.png' });
    await signInThroughForm(page, served.origin);

    const card = page.locator(`#pending .card[data-id="${target.id}"]`);
    await expect.poll(() => card.isVisible()).toBe(true);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    await expect.poll(() => page.locator('.principal').textContent()).toBe('alice@example.com');
    await screenshots(page, '/tmp/approvals-page-1280.png');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: '/tmp/approvals-page-1280-dark.png' });
    await page.emulateMedia({ colorScheme: 'light' });

    // A request arriving while the page is open appears without a reload.
    await page.evaluate('window.marker = 1');
    const arriving = await holdCall(fixture.desk, { tool: 'rotate_credentials', riskLevel: 'reversible' });
    await expect.poll(() => page.locator(`#pending .card[data-id="${arriving.id}"]`).count()).toBe(1);
    expect(await page.evaluate('window.marker')).toBe(1);
    await expect.poll(() => page.locator('#pending-count').textContent()).toBe('3');

    // Decide through the page.
    await card.locator('textarea').fill('Archive verified in cold storage (OPS-4411)');
    await card.locator('button[data-decision="approve"]').click();
    await expect.poll(() => page.locator(`#decided .card[data-id="${target.id}"]`).count()).toBe(1);
    expect(await page.locator(`#pending .card[data-id="${target.id}"]`).count()).toBe(0);
    const stored = await fixture.desk.get(target.id);
    expect(stored).toMatchObject({
      state: 'approved',
      decided_by: 'alice@example.com',
      reason: 'Archive verified in cold storage (OPS-4411)',
    });
    const decidedText = await page.locator(`#decided .card[data-id="${target.id}"]`).innerText();
    expect(decidedText).toContain('alice@example.com');
    expect(decidedText).toContain('Archive verified in cold storage (OPS-4411)');
    expect(decidedText).not.toMatch(/\d{4}-\d\d-\d\dT/);

    // A decision made elsewhere moves the card down, live.
    await fixture.desk.decide(arriving.id, {
      approve: false,
      by: 'carol@example.com',
      reason: 'Not during the freeze',
    });
    await expect.poll(() => page.locator(`#decided .card[data-id="${arriving.id}"]`).count()).toBe(1);
    await expect.poll(() => page.locator('#pending-count').textContent()).toBe('1');
    await screenshots(page, '/tmp/approvals-page-1280-after.png');

    expect(problems).toEqual([]);
    await context.close();
  });

  it('reads well at 390 px wide, with nothing wider than the screen', async () => {
    const problems: string[] = [];
    await holdCall(fixture.desk, {
      tool: 'kubernetes_delete_namespace_and_every_resource_in_it_including_persistent_volumes',
      message: 'Delete namespace payments-staging-eu-west-1-blue-green-canary',
      arguments: {
        namespace: 'payments-staging-eu-west-1-blue-green-canary',
        url: `https://example.com/${'a'.repeat(200)}`,
      },
    });
    const { context, page } = await newPage(browser, 390, 844, problems);
    await page.goto(`${served.origin}/approvals/sign-in`);
    await page.screenshot({ path: '/tmp/approvals-page-sign-in-390.png' });
    await signInThroughForm(page, served.origin);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Live');
    const widest = await page.evaluate('document.documentElement.scrollWidth');
    expect(widest).toBeLessThanOrEqual(390);
    await screenshots(page, '/tmp/approvals-page-390.png');

    // Sign out from the header: back at the form, and the page is closed to this browser.
    await page.click('.sign-out button');
    await page.waitForURL(`${served.origin}/approvals/sign-in?signed-out=1`);
    await expect.poll(() => page.locator('.notice').textContent()).toBe('You are signed out.');
    await page.goto(`${served.origin}/approvals`);
    await expect.poll(() => page.url()).toBe(`${served.origin}/approvals/sign-in`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('falls back to polling without the event stream, and says inline when a request was decided elsewhere', async () => {
    const problems: string[] = [];
    const request = await holdCall(fixture.desk, { tool: 'scale_down_cluster' });
    const { context, page } = await newPage(browser, 1280, 900, problems);
    await page.route('**/approvals/api/events', (route) => route.abort());
    await signInThroughForm(page, served.origin);
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Checking every 5 s');

    // Polling brings a new request in.
    const arriving = await holdCall(fixture.desk, { tool: 'purge_cdn_cache', riskLevel: 'safe' });
    await expect
      .poll(() => page.locator(`#pending .card[data-id="${arriving.id}"]`).count(), { timeout: 12_000 })
      .toBe(1);

    // Decided elsewhere, and clicked before the page heard of it: the refusal shows on the card.
    await page.clock.install();
    await fixture.desk.decide(request.id, { approve: false, by: 'carol@example.com' });
    const card = page.locator(`#pending .card[data-id="${request.id}"]`);
    await card.locator('button[data-decision="approve"]').click();
    await expect
      .poll(() => card.locator('.error').textContent())
      .toBe('This request was already denied by carol@example.com');
    expect(await card.locator('button[data-decision="approve"]').isDisabled()).toBe(true);
    await page.screenshot({ path: '/tmp/approvals-page-refused.png' });
    await page.clock.runFor(7000);
    await expect.poll(() => page.locator(`#decided .card[data-id="${request.id}"]`).count()).toBe(1);

    // Expected: the aborted event stream, and the 409 the browser logs for the refused decision.
    const unexpected = problems.filter(
      (problem) => !problem.includes('/approvals/api/events') && !problem.includes('status of 409'),
    );
    expect(unexpected).toEqual([]);
    await context.close();
  });
});
