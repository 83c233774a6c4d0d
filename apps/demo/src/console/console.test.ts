/**
 * The web console in a real headless Chromium (Debian's `chromium`, driven
 * by playwright-core): it connects from the page to the tracker over
 * Streamable HTTP, runs tour steps, and renders the confirmation dialog,
 * which is checked on a screenshot. Its task panel runs export_report as a
 * task against the compiled tracker in a child process on a SQLite file,
 * which a test kills and starts again under a running task.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshTrackerOptions,
  startChildTracker,
  type ChildTracker,
  type ChildTrackerOptions,
} from '../server/child-tracker.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { taskLink, type TaskLink } from '../client/task-link.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * Opens a console link carrying a token and answers the question the page
 * asks before it signs the tab in: yes unless `accept` is false. Resolves to
 * the page's response headers.
 */
async function openLink(page: Page, href: string, accept = true): Promise<Record<string, string>> {
  const headers = (await page.goto(href))?.headers() ?? {};
  const dialog = page.locator('dialog#sign-in');
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator(accept ? '#sign-in-accept' : '#sign-in-decline').click();
  await dialog.waitFor({ state: 'hidden' });
  return headers;
}

// `pnpm test` installs Debian's chromium where it may, and lists this file among the skipped ones where it cannot.
describe.skipIf(!existsSync(CHROMIUM))(
  `the web console in headless Chromium${existsSync(CHROMIUM) ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`,
  () => {
    let running: RunningHttpServer;
    let browser: Browser;
    let page: Page;
    /** What Chromium said about the page's Content-Security-Policy, and the headers the page came with. */
    const violations: string[] = [];
    let pageHeaders: Record<string, string> = {};

    beforeAll(async () => {
      // The tracker as served: delete_ticket is destructive, so the confirmation gate asks first.
      running = await startHttpServer({ port: 0, logger: silentLogger });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
      });
      // Signed in as alice: the link the server prints carries her token in the fragment.
      pageHeaders = await openLink(page, running.consoleUrl('alice').href);
      await page.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
    });

    afterAll(async () => {
      await browser.close();
      await running.close();
    });

    it('runs under its Content-Security-Policy, unframeable, without a violation', () => {
      expect(pageHeaders['content-security-policy']).toContain("script-src 'self'");
      expect(pageHeaders['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(pageHeaders['x-frame-options']).toBe('DENY');
      expect(violations).toEqual([]);
    });

    it('takes the token out of the address bar once it has it', () => {
      expect(page.url()).toBe(new URL('/console/', running.url).href);
    });

    it('shows who the tab is signed in as', async () => {
      await expect(page.locator('#identity').textContent()).resolves.toBe('Signed in as alice.');
    });

    it('asks before a link signs a tab in, or switches it to someone else; declining changes nothing', async () => {
      const tab = await browser.newPage({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 1 });
      try {
        // A fresh tab: the link would sign it in as bob, and the page says so before it does.
        await tab.goto(running.consoleUrl('bob').href);
        await tab.locator('dialog#sign-in').waitFor({ state: 'visible' });
        await expect(tab.locator('#sign-in-message').textContent()).resolves.toBe(
          'The link you opened signs this tab in as bob.',
        );
        expect(tab.url()).toBe(new URL('/console/', running.url).href);
        await tab.locator('#sign-in-decline').click();
        await tab.locator('#status[data-state="failed"]').waitFor({ timeout: 30_000 });
        await expect(tab.locator('#identity').textContent()).resolves.toBe('Not signed in.');
        // Signed in as alice, a crafted link for bob asks first; "Stay alice" keeps her.
        await openLink(tab, running.consoleUrl('alice').href);
        await tab.locator('#identity', { hasText: 'Signed in as alice.' }).waitFor();
        await tab.goto(running.consoleUrl('bob').href);
        const dialog = tab.locator('dialog#sign-in');
        await dialog.waitFor({ state: 'visible' });
        await expect(tab.locator('#sign-in-message').textContent()).resolves.toBe(
          'This tab is signed in as alice. The link you opened would sign it in as bob instead.',
        );
        const shot = await dialog.screenshot({ path: join(tmpdir(), 'console-sign-in-dialog.png') });
        expect(pngSize(shot).width).toBeGreaterThan(200);
        await tab.locator('#sign-in-decline').click();
        await tab.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
        await expect(tab.locator('#identity').textContent()).resolves.toBe('Signed in as alice.');
        // Agreeing switches the tab.
        await openLink(tab, running.consoleUrl('bob').href);
        await tab.locator('#identity', { hasText: 'Signed in as bob.' }).waitFor();
        await tab.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
        // A link with a token the tracker does not know asks nothing and signs nobody in.
        await tab.goto(new URL('/console/#token=forged-token-of-no-one', running.url).href);
        await tab.locator('#identity', { hasText: 'Signed in as bob.' }).waitFor();
        await expect(tab.locator('dialog#sign-in').isVisible()).resolves.toBe(false);
      } finally {
        await tab.close();
      }
    });

    it('tells a visitor without a token how to sign in, and the server refuses it', async () => {
      const stranger = await browser.newPage();
      try {
        await stranger.goto(new URL('/console/', running.url).href);
        await stranger.locator('#status[data-state="failed"]').waitFor({ timeout: 30_000 });
        await expect(stranger.locator('#status').textContent()).resolves.toContain(
          'open the console link it printed at start',
        );
      } finally {
        await stranger.close();
      }
    });

    it('connects from the page and shows what the server advertises', async () => {
      await expect(page.locator('#status').textContent()).resolves.toContain('Connected to tracker');
      const advertised = await page.locator('#extensions li').allTextContents();
      expect(advertised.some((line) => line.startsWith('io.github.mcp-ext/confirmation'))).toBe(true);
    });

    it('shows the manifest the server assembled', async () => {
      const answer = JSON.parse((await page.locator('#manifest').textContent()) ?? '{}') as {
        etag?: string;
        manifest?: { tools?: { name: string }[] };
      };
      expect(answer.etag).toMatch(/^[0-9a-f]{64}$/);
      expect(answer.manifest?.tools?.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['delete_ticket', 'export_report', 'attach_image']),
      );
    });

    it('creates a ticket and reads it as JSON and as markdown', async () => {
      await page.getByRole('button', { name: 'Create a ticket' }).click();
      await page.locator('#explanation', { hasText: 'succeeded' }).waitFor();
      // The page subscribed at start: the new ticket arrives in the live events panel.
      await expect(page.locator('#ticket-events-status').textContent()).resolves.toContain(
        'Subscribed to ticket_created, ticket_closed, ticket_deleted',
      );
      await page
        .locator('#ticket-events li[data-event="ticket_created"]', { hasText: 'T-1 "Try the console" (open)' })
        .waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Read it as an agent (JSON)' }).click();
      await page.locator('#explanation', { hasText: 'agent output' }).waitFor();
      expect(await page.locator('#result').textContent()).toContain('"structuredContent"');
      await page.getByRole('button', { name: 'Read it as a person (markdown)' }).click();
      await page.locator('#explanation', { hasText: 'human output' }).waitFor();
      expect(await page.locator('#result').textContent()).toContain('format=markdown');
    });

    it('asks in a dialog before a destructive call, runs nothing on cancel, and runs once on approval', async () => {
      await page.getByRole('button', { name: 'Delete it (asks you first)' }).click();
      const dialog = page.locator('dialog#confirm');
      await dialog.waitFor({ state: 'visible' });
      await expect(dialog.locator('#confirm-message').textContent()).resolves.toContain(
        'Delete ticket T-1 for good? This cannot be undone.',
      );
      await expect(dialog.locator('#confirm-risk').textContent()).resolves.toBe('destructive');

      const shot = await dialog.screenshot();
      const box = await dialog.boundingBox();
      const size = pngSize(shot);
      expect(box).not.toBeNull();
      expect(size.width).toBe(Math.round(box?.width ?? 0));
      expect(size.height).toBe(Math.round(box?.height ?? 0));
      // A rendered dialog (text, badge, two buttons) does not compress to a blank image.
      expect(shot.length).toBeGreaterThan(4_000);

      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('#explanation', { hasText: 'You cancelled' }).waitFor();
      await page.getByRole('button', { name: 'Read it as an agent (JSON)' }).click();
      await page.locator('#explanation', { hasText: 'agent output' }).waitFor();
      expect(await page.locator('#result').textContent()).toContain('"id": "T-1"');

      await page.getByRole('button', { name: 'Delete it (asks you first)' }).click();
      await dialog.waitFor({ state: 'visible' });
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await page.locator('#explanation', { hasText: 'You approved' }).waitFor();
      expect(await page.locator('#result').textContent()).toContain('"status": "confirmed"');
      await page
        .locator('#ticket-events li[data-event="ticket_deleted"]', { hasText: 'T-1' })
        .waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Read it as an agent (JSON)' }).click();
      await page.locator('#result', { hasText: 'RESOURCE_NOT_FOUND' }).waitFor();
    });

    it('shows a structured error with its category', async () => {
      await page.getByRole('button', { name: 'Ask for a ticket that does not exist' }).click();
      await page.locator('#explanation', { hasText: 'RESOURCE_NOT_FOUND' }).waitFor();
      expect(await page.locator('#explanation').textContent()).toContain('permanent');
    });

    it('polls for events with the subscription cursor when opened with ?delivery=poll', async () => {
      const polling = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
      try {
        const url = running.consoleUrl('alice');
        url.search = '?delivery=poll';
        await openLink(polling, url.href);
        await polling.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
        await polling.locator('#ticket-events-status', { hasText: 'delivered by poll' }).waitFor();
        await polling.getByRole('button', { name: 'Create a ticket' }).click();
        await polling.locator('#explanation', { hasText: 'succeeded' }).waitFor();
        // The server pushes nothing to this page: the ticket arrives with the next poll (every 5 s here).
        const created = polling.locator('#ticket-events li[data-event="ticket_created"]', {
          hasText: '"Try the console" (open)',
        });
        await created.first().waitFor({ timeout: 15_000 });
        // Each event once: the cursor moves past what a poll returned.
        await polling.waitForTimeout(6_000);
        expect(await created.count()).toBe(1);
      } finally {
        await polling.close();
      }
    });

    it('met no Content-Security-Policy violation in any step', () => {
      expect(violations).toEqual([]);
    });

    it('serves only the console files, never other paths', async () => {
      const traversal = await fetch(new URL('/console/../package.json', running.url));
      expect(traversal.status).toBe(404);
      const unknown = await fetch(new URL('/console/server.js', running.url));
      expect(unknown.status).toBe(404);
    });
  },
);

/** Rows in the task tests' exports, and the pause between them: an export takes about four seconds. */
const TASK_TICKETS = 16;
const TASK_PACE_MS = 250;

describe.skipIf(!existsSync(CHROMIUM))(
  `the web console's task panel in headless Chromium${existsSync(CHROMIUM) ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`,
  () => {
    let dir: string;
    let options: ChildTrackerOptions;
    let tracker: ChildTracker;
    let browser: Browser;
    let page: Page;
    let alice: TaskLink;
    const violations: string[] = [];
    const status = () => page.locator('#task-status');

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'console-tasks-'));
      options = freshTrackerOptions(
        new URL('../../dist/http.js', import.meta.url),
        join(dir, 'tracker.db'),
        TASK_PACE_MS,
      );
      tracker = await startChildTracker(options);
      alice = taskLink({ url: tracker.url, token: options.tokens.alice });
      for (let index = 1; index <= TASK_TICKETS; index += 1)
        await alice.request('tools/call', { name: 'create_ticket', arguments: { title: `Chore ${String(index)}` } });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
      });
      await openLink(page, new URL(`/console/#token=${options.tokens.alice}`, tracker.url).href);
      await page.locator('#status[data-state="ready"]').waitFor({ timeout: 30_000 });
    });

    afterAll(async () => {
      await browser.close();
      await tracker.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Starts an export from the page and resolves to the task id it shows once the task works. */
    async function startTask(): Promise<string> {
      await page.getByRole('button', { name: 'Export as a task' }).click();
      await page.locator('#task-status[data-status="working"]').waitFor({ timeout: 15_000 });
      const taskId = await page.locator('#task-id').getAttribute('data-task-id');
      expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
      return taskId ?? '';
    }

    it('starts an export as a task and polls tasks/get to its inlined result', async () => {
      const taskId = await startTask();
      await page
        .locator('#task-status', { hasText: new RegExp(`working: row \\d+ of ${String(TASK_TICKETS)} \\(\\d+%\\)`) })
        .waitFor();
      await page.locator('#task-status[data-status="completed"]').waitFor({ timeout: 30_000 });
      await page.locator('#explanation', { hasText: 'tasks/get carried its result inline' }).waitFor();
      expect(await page.locator('#result').textContent()).toContain(`"rows": ${String(TASK_TICKETS)}`);
      expect(await page.locator('#task-progress').getAttribute('value')).toBe('1');
      // The server says the same of the task the page followed.
      expect(await alice.request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
      await expect(page.getByRole('button', { name: 'Cancel the task' }).isDisabled()).resolves.toBe(true);
    });

    it('cancels the task with tasks/cancel', async () => {
      const taskId = await startTask();
      await page.getByRole('button', { name: 'Cancel the task' }).click();
      await page.locator('#task-status[data-status="cancelled"]').waitFor({ timeout: 15_000 });
      await page.locator('#explanation', { hasText: 'The task was cancelled' }).waitFor();
      expect(await alice.request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    });

    it('keeps polling while the server restarts, and shows the task resumed and completed', async () => {
      const taskId = await startTask();
      await tracker.kill();
      // The page notices the server is gone, keeps the task id, and asks again.
      await page.locator('#task-status[data-reachable="false"]').waitFor({ timeout: 15_000 });
      expect(await page.locator('#task-id').getAttribute('data-task-id')).toBe(taskId);
      tracker = await startChildTracker({ ...options, port: Number(tracker.url.port) });
      await page.locator('#task-status[data-resumed="true"]').waitFor({ timeout: 30_000 });
      await expect(status().textContent()).resolves.toContain('resumed by a restarted server (execution 2)');
      await page.locator('#task-status[data-status="completed"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#result').textContent()).toContain(`"rows": ${String(TASK_TICKETS)}`);
      expect(await alice.request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
    });

    it('met no Content-Security-Policy violation', () => {
      expect(violations).toEqual([]);
    });
  },
);
