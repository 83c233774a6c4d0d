/** The README's out-of-band approval: calls an operator approves, as tasks for Tasks clients, with a page and webhooks. */
// #region approvals
import { composeServer, MemoryStore } from '@ext/core';
import { createHttpHandler, listen } from '@ext/core/sdk-v2/server';
import { approvalDesk, approvalsPage, approvalWebhooks } from '@ext/confirmation/approvals';
import { confirmationServer, toolApprovalServer } from '@ext/confirmation/server';

const store = new MemoryStore(); // SQLite or Redis in production: requests survive restarts and are shared
const webhooks = approvalWebhooks({
  store,
  desk: () => desk,
  endpoints: [{ url: 'https://hooks.example/approvals', secret: process.env.HOOK_SECRET ?? '', format: 'slack' }],
  linkBaseUrl: 'https://mcp.example/approvals/links',
  linkSecret: process.env.LINK_SECRET ?? '',
});
const desk = approvalDesk({ store, link: 'https://mcp.example/approvals', backends: [webhooks.backend] });
const page = approvalsPage({ desk, authenticate: operatorOf, approverScope: 'approvals:decide' });

const approver = (tool: { name: string }) => (tool.name === 'delete_repo' ? 'operator' : 'either');
const composed = composeServer([
  // With @ext/tasks, a Tasks client (2026-07-28) gets a working task at once (SEP-2848):
  // tasksServer({ tools: approvalTasks(approver), onInterrupt: () => 'resume' }),
  confirmationServer({ approver, approvals: desk, holdSeconds: 20 }),
  toolApprovalServer(), // advertises io.modelcontextprotocol/tool-approval
]);

const handler = createHttpHandler(() => buildServer(composed, store), { identify });
await listen(
  { ...handler, pages: async (request) => (await webhooks.links.fetch(request)) ?? page.fetch(request) },
  { port: 8080 },
);

// Or decide in code, from a chat bot or a ticketing system:
const [oldest] = await desk.list({ state: 'pending' });
if (oldest !== undefined)
  await desk.decide(oldest.id, { approve: true, by: 'ops@example.com', reason: 'ticket OPS-12' });
// #endregion approvals

import type { ComposedServer, Store } from '@ext/core';
import type { McpServer } from '@modelcontextprotocol/server';
declare function buildServer(composed: ComposedServer, store: Store): McpServer;
declare function identify(request: Request): string | undefined;
declare function operatorOf(request: Request): Promise<{ principal: string; scopes: readonly string[] } | undefined>;
