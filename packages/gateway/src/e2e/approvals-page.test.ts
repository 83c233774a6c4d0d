/**
 * The approvals page of a running gateway, in a real headless Chromium
 * (GW-30): a client that cannot be asked (the AI SDK's MCP client where Node
 * allows it, else the SDK's own) calls the filesystem server's `write_file`
 * and is told the call waits for an operator; an operator signs in on the
 * page with their API key, sees the request and approves it with a reason;
 * the client's retry then writes the file, once. A caller without the
 * approver scope is refused at sign-in.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  textOf,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
// @ai-sdk/mcp declares `engines.node >= 22`; `pnpm test` runs the suite again on Node 24.
const AI_SDK_NODE = NODE_MAJOR >= 22;

const AGENT_KEY = 'agent-key-0123456789abcdef';
const OPS_KEY = 'ops-key-0123456789abcdef';
const AGENT_ONLY_KEY = 'other-key-0123456789abcdef';

async function filesGateway(): Promise<ServedGateway & { readonly root: string }> {
  const root = await tempDir('approvals-page');
  const config = gatewayConfig({
    upstreams: { files: filesystemUpstream(root) },
    policy: { write_file: { confirm: { approver: 'operator', message: 'Write {path}?' } } },
    approvals: { holdSeconds: 0 },
    identity: {
      apiKeys: {
        [AGENT_KEY]: 'agent',
        [AGENT_ONLY_KEY]: 'other',
        [OPS_KEY]: { principal: 'ops', scopes: ['approvals:decide'] },
      },
    },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), root };
}

/** Calls `write_file` as the agent with a client that cannot be asked; the result as the client reads it. */
type WriteFile = (args: { path: string; content: string }) => Promise<unknown>;

async function agentWriter(served: ServedGateway): Promise<WriteFile> {
  const headers = { authorization: `Bearer ${AGENT_KEY}` };
  if (AI_SDK_NODE) {
    // Loaded here, so that on an older Node the file still loads.
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const client = await createMCPClient({ transport: { type: 'http', url: served.url.href, headers } });
    closeAfter(() => client.close());
    return (args) => client.callTool({ name: 'write_file', arguments: args });
  }
  const { sdk } = await connectClient(served.url, { era: 'legacy', headers });
  return (args) => sdk.callTool({ name: 'write_file', arguments: args });
}

async function signIn(page: Page, served: ServedGateway, key: string): Promise<void> {
  await page.goto(new URL('/approvals', served.url).href);
  await page.fill('#token', key);
  await page.click('button[type="submit"]');
}

describe.skipIf(!existsSync(CHROMIUM))(`the approvals page in Chromium (${CHROMIUM})`, () => {
  it(`an operator approves a held write_file on the page; the ${AI_SDK_NODE ? 'AI SDK' : 'SDK'} client's retry writes the file once`, async () => {
    const served = await filesGateway();
    const write = await agentWriter(served);
    const args = { path: join(served.root, 'report.md'), content: '# Q3' };
    // Neither client speaks our errors extension: what they read is the result's text.
    const held = await write(args);
    expect(held).toMatchObject({ isError: true });
    const id = /approval request ([0-9a-f-]{36}) is pending/.exec(textOf(held))?.[1] ?? '';
    expect(id).not.toBe('');

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    closeAfter(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await signIn(page, served, OPS_KEY);
    const card = page.locator(`#pending .card[data-id="${id}"]`);
    await expect.poll(() => card.count()).toBe(1);
    const shown = await card.innerText();
    expect(shown).toContain('write_file');
    expect(shown).toContain('id:agent');
    expect(shown).toContain('report.md');
    await page.screenshot({ path: '/tmp/gateway-approvals-page.png', fullPage: true });
    await card.locator('textarea').fill('Quarterly report, expected');
    await card.locator('button[data-decision="approve"]').click();
    await expect.poll(() => page.locator(`#decided .card[data-id="${id}"]`).count()).toBe(1);
    expect(await page.locator(`#decided .card[data-id="${id}"]`).innerText()).toContain('Quarterly report, expected');
    expect(problems).toEqual([]);

    expect(await readFile(args.path, 'utf8').catch(() => undefined)).toBeUndefined();
    const done = await write(args);
    expect((done as { isError?: boolean }).isError).toBeFalsy();
    expect(await readFile(args.path, 'utf8')).toBe('# Q3');
    // Used once: the same call again waits for a new decision.
    expect(textOf(await write(args))).toContain('waits for an approver');
  });

  it('refuses to sign in a caller without the approver scope, naming the scope', async () => {
    const served = await filesGateway();
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    closeAfter(() => browser.close());
    const page = await browser.newPage();
    await signIn(page, served, AGENT_ONLY_KEY);
    await expect.poll(() => page.locator('body').innerText()).toContain('approvals:decide');
    expect(await page.locator('#pending').count()).toBe(0);
  });
});
