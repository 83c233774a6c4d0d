/**
 * Each ready policy against its server's real tool list: the server, at the
 * version this package pins (npm devDependencies, PyPI versions in
 * fixtures/python-upstreams.txt), started unmodified over stdio and asked
 * `tools/list` by the SDK client, connected as the gateway connects (no
 * client capabilities). A ready policy must name exactly the tools the
 * server offers, and must not take away a gate the server's own annotations
 * ask for. The servers that need credentials or a database start without
 * them: they list their tools without calling out (github needs no token
 * for that, slack any token, postgres a URL it connects to only on a query).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { describe, expect, inject, it } from 'vitest';
import type { StdioUpstream } from '../config/schema.js';
import { resolveToolPolicy } from '../policy/resolve.js';
import { pythonUpstream } from '../upstream/testing/python.js';
import { binOf } from '../upstream/testing/servers.js';
import { READY_POLICIES, READY_POLICY_NAMES, type ReadyPolicyName } from './index.js';

interface ListedTool {
  readonly name: string;
  readonly inputSchema: { readonly properties?: Readonly<Record<string, unknown>> | undefined };
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean } | undefined;
}

/** The `{param}` placeholders of a confirmation message. */
function placeholders(message: string | undefined): string[] {
  return [...(message ?? '').matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');
}

function npmServer(packageName: string, args: readonly string[] = [], env?: Record<string, string>): StdioUpstream {
  return { command: process.execPath, args: [binOf(packageName), ...args], ...(env === undefined ? {} : { env }) };
}

const python = inject('pythonUpstreams');
const pythonMissing = 'unavailable' in python ? python.unavailable : undefined;

/** How to start each policy's server here, or why it cannot be. */
function serverOf(name: ReadyPolicyName): StdioUpstream | string {
  switch (name) {
    case 'filesystem':
      return npmServer('@modelcontextprotocol/server-filesystem', [process.cwd()]);
    case 'memory':
      return npmServer('@modelcontextprotocol/server-memory');
    case 'everything':
      return npmServer('@modelcontextprotocol/server-everything', ['stdio']);
    case 'github':
      return npmServer('@modelcontextprotocol/server-github');
    case 'postgres':
      // Nothing listens there: the server connects only when a query runs.
      return npmServer('@modelcontextprotocol/server-postgres', ['postgresql://127.0.0.1:9/no-database']);
    case 'slack':
      // Read at start, used only when a tool calls Slack.
      return npmServer('@modelcontextprotocol/server-slack', [], {
        SLACK_BOT_TOKEN: 'xoxb-not-a-token',
        SLACK_TEAM_ID: 'T00000000',
      });
    case 'git':
    case 'time':
    case 'fetch':
      return 'python' in python ? pythonUpstream(python.python, name) : (pythonMissing ?? '');
  }
}

async function listTools(upstream: StdioUpstream): Promise<ListedTool[]> {
  const transport = new StdioClientTransport({
    command: upstream.command,
    args: [...(upstream.args ?? [])],
    env: { ...getDefaultEnvironment(), ...upstream.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'ready-policy-check', version: '0.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe.each(READY_POLICY_NAMES)('the ready policy %s', (name) => {
  const server = serverOf(name);
  const missing = typeof server === 'string' ? server : undefined;

  it.skipIf(missing !== undefined)(
    `names exactly the tools its server lists, keeps every gate the server asks for, and asks with their arguments${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const tools = await listTools(server as StdioUpstream);
      const policy = READY_POLICIES[name];
      expect(Object.keys(policy).sort()).toEqual(tools.map((tool) => tool.name).sort());

      const config = { upstreams: {}, policies: [name] };
      for (const tool of tools) {
        const resolved = resolveToolPolicy({ config, tool });
        if (resolved === undefined) continue; // hidden by the policy
        // Every `{param}` of a message is an argument of the tool, so the person sees the value, not the gap.
        const properties = Object.keys(tool.inputSchema.properties ?? {});
        for (const param of placeholders(resolved.confirm?.message)) expect(properties, tool.name).toContain(param);
        // A tool its server calls destructive stays confirmed (always, or for the calls `when` picks).
        if (tool.annotations?.destructiveHint === true) expect(resolved.confirm, tool.name).toBeDefined();
        // A tool its server calls read-only is neither confirmed nor deduplicated.
        if (tool.annotations?.readOnlyHint === true) {
          expect([resolved.confirm, resolved.idempotent], tool.name).toEqual([undefined, false]);
        }
      }
    },
  );
});
