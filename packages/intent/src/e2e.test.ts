import { silentLogger, type ExtendedServer, type ToolResult } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callWithIntent, getSuggestion, intentClient, intentMeta } from './client.js';
import { INTENT_ID } from './schema.js';
import { intentServer, type IntentServerOptions, type RoutingRule } from './server.js';

const RULES: readonly RoutingRule[] = [{ tool: 'get_recent_incidents', keywords: ['incident'], reason: 'Filters by incident type and recency.' }];

let pair: TestPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

async function connect(line: (typeof TEST_LINES)[number], ran: string[], client = true, options: IntentServerOptions = { rules: RULES }): Promise<TestPair> {
  pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), intentServer(options)],
    clientExtensions: [errorsClient(), client && intentClient()],
    serverOptions: { logger: silentLogger },
    setup: (server: ExtendedServer) => {
      for (const name of ['search_issues', 'get_recent_incidents', 'delete_everything']) {
        server.registerTool(name, { inputSchema: z.object({ query: z.string() }) }, ({ query }): ToolResult => {
          ran.push(name);
          return { content: [{ type: 'text', text: `${name}: ${query}` }] };
        });
      }
    },
  });
  return pair;
}

describe.each(TEST_LINES)('intent end to end on %s', (line) => {
  it('INT-5: advisory by default: the call runs and the result carries the suggestion', async () => {
    const ran: string[] = [];
    const { client } = await connect(line, ran);
    const result = await client.callTool('search_issues', { query: 'deploy' }, { meta: intentMeta("Find Friday's deployment incident") });
    expect(ran).toEqual(['search_issues']);
    expect(getSuggestion(result)).toEqual({ suggestion: { recommended_tool: 'get_recent_incidents', reason: 'Filters by incident type and recency.' }, executed: true });
    const plain = await client.callTool('search_issues', { query: 'deploy' }, { meta: intentMeta('Find the login bug') });
    expect(plain._meta?.[INTENT_ID]).toBeUndefined();
  });

  it('INT-6: redirect mode returns the suggestion without running the tool', async () => {
    const ran: string[] = [];
    const { client } = await connect(line, ran, true, { rules: RULES, mode: 'redirect' });
    const result = await client.callTool('search_issues', { query: 'deploy' }, { meta: intentMeta('the incident on Friday') });
    expect(ran).toEqual([]);
    expect(result.isError).not.toBe(true);
    expect(getSuggestion(result)?.executed).toBe(false);
  });

  it('INT-8: the client follows a suggestion only to an allow-listed tool', async () => {
    const ran: string[] = [];
    const { client } = await connect(line, ran, true, {
      mode: 'redirect',
      rules: [...RULES, { tool: 'delete_everything', keywords: ['cleanup'] }],
    });
    const seen: string[] = [];
    const followed = await callWithIntent(client, 'search_issues', { query: 'q' }, 'an incident', {
      policy: 'follow',
      allowTools: ['get_recent_incidents'],
      onSuggestion: (s) => seen.push(s.suggestion.recommended_tool),
    });
    expect(followed.followed).toBe('get_recent_incidents');
    const refused = await callWithIntent(client, 'search_issues', { query: 'q' }, 'cleanup time', { policy: 'follow', allowTools: ['get_recent_incidents'] });
    expect(refused.followed).toBeUndefined();
    expect(ran).toEqual(['get_recent_incidents']);
    expect(seen).toEqual(['get_recent_incidents']);
    const ignored = await callWithIntent(client, 'search_issues', { query: 'q' }, 'an incident', { policy: 'ignore' });
    expect(ignored.followed).toBeUndefined();
  });

  it('INT-3: a malformed intent is refused as invalid_input naming the field, before the tool runs', async () => {
    const ran: string[] = [];
    const { client } = await connect(line, ran, true, { rules: RULES, maxIntentLength: 20 });
    const long = await client.callTool('search_issues', { query: 'q' }, { meta: intentMeta('x'.repeat(21)) });
    expect(getStructuredError(long)).toMatchObject({ category: 'invalid_input', details: { field: 'intent' } });
    const notObject = await client.callTool('search_issues', { query: 'q' }, { meta: { [INTENT_ID]: 'why' } });
    expect(getStructuredError(notObject)).toMatchObject({ category: 'invalid_input', details: { field: INTENT_ID } });
    expect(ran).toEqual([]);
  });

  it('INT-2: a client without the extension gets core behaviour, its _meta ignored', async () => {
    const ran: string[] = [];
    const { client } = await connect(line, ran, false, { rules: RULES, mode: 'redirect' });
    const result = await client.callTool('search_issues', { query: 'q' }, { meta: intentMeta('an incident') });
    expect(ran).toEqual(['search_issues']);
    expect(result._meta?.[INTENT_ID]).toBeUndefined();
  });
});
