/** The README's server half: an issue tracker that points callers to a better tool for what they say they want. */
// #region server
import { composeServer } from '@ext/core';
import { extendServer } from '@ext/core/sdk-v2/server';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { errorsServer } from '@ext/errors/server';
import { intentServer } from '@ext/intent/server';

const composed = composeServer([
  errorsServer(),
  intentServer({
    rules: [
      {
        tool: 'get_recent_incidents',
        keywords: ['incident', 'outage'],
        from: ['search_issues'],
        reason: 'Filters by incident type and recency.',
      },
      { tool: 'export_report', pattern: /\b(csv|spreadsheet)\b/i },
    ],
    // Asked when no rule matched, with the call's validated arguments and context; may be async. A throw never breaks the call.
    router: ({ intent, tool }) =>
      tool === 'search_issues' && /last week/i.test(intent)
        ? { recommendedTool: 'list_recent', reason: 'Filters by date.' }
        : undefined,
  }),
]);

const mcp = new McpServer({ name: 'issues', version: '1.0.0' });
const server = extendServer(mcp, composed);
registerIssueTools(server); // search_issues, get_recent_incidents, list_recent, export_report
await mcp.connect(new StdioServerTransport());
// #endregion server

declare function registerIssueTools(server: ExtendedServer): void;

import type { ExtendedServer } from '@ext/core';
