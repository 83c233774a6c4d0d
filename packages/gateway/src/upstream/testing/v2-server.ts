/**
 * Test support: the SDK v2 `McpServer` behind `serveV2` (`v2-upstream.ts`),
 * built anew for each session or request from one shared state: `echo`
 * (recording what it said), `fail` (a tool error), `slow` (running until the
 * test releases it or its signal aborts), and the tools the test added or
 * changed since.
 */
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import * as z from 'zod';

/** A promise and the function that settles it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export interface V2State {
  readonly added: string[];
  /** Descriptions `changeTool` gave, by tool name. */
  readonly descriptions: Map<string, string>;
  readonly echoed: string[];
  readonly aborted: string[];
  readonly abortWaiters: Map<string, () => void>;
  readonly started: Map<string, { promise: Promise<void>; resolve: () => void }>;
  /** What `slow` calls now running wait for; replaced once released, so later calls wait again. */
  release: { promise: Promise<void>; resolve: () => void };
}

export function newV2State(): V2State {
  return {
    added: [],
    descriptions: new Map(),
    echoed: [],
    aborted: [],
    abortWaiters: new Map(),
    started: new Map(),
    release: deferred(),
  };
}

/** The tools registered on each server built, by name: what `changeTool` updates on a live session. */
const registeredTools = new WeakMap<McpServer, Map<string, RegisteredTool>>();

function remember(server: McpServer, name: string, tool: RegisteredTool): void {
  const tools = registeredTools.get(server) ?? new Map<string, RegisteredTool>();
  tools.set(name, tool);
  registeredTools.set(server, tools);
}

export function registerAdded(server: McpServer, name: string): void {
  const tool = server.registerTool(name, { description: `added later: ${name}` }, () => ({
    content: [{ type: 'text', text: `added ${name}` }],
  }));
  remember(server, name, tool);
}

/** Gives the tool `name` of `server` a new description (telling its client, once connected, the list changed). */
export function describeTool(server: McpServer, name: string, description: string): void {
  registeredTools.get(server)?.get(name)?.update({ description });
}

/** `slow`: waits until the test releases it or its signal aborts (recording the abort). */
export function startedGate(state: V2State, label: string): { promise: Promise<void>; resolve: () => void } {
  let gate = state.started.get(label);
  if (gate === undefined) {
    gate = deferred();
    state.started.set(label, gate);
  }
  return gate;
}

async function runSlow(state: V2State, label: string, signal: AbortSignal): Promise<string> {
  startedGate(state, label).resolve();
  const aborted = new Promise<void>((resolve) => {
    const onAbort = () => {
      state.aborted.push(label);
      state.abortWaiters.get(label)?.();
      resolve();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([aborted, state.release.promise]);
  return `slow ${label} done`;
}

export function buildV2(state: V2State): McpServer {
  const server = new McpServer({ name: 'v2-upstream', version: '1.0.0' });
  const echo = server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Says the text back.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ echoed: z.string() }),
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/kind': 'echo' },
    },
    ({ text }) => {
      state.echoed.push(text);
      return { content: [{ type: 'text', text }], structuredContent: { echoed: text } };
    },
  );
  const fail = server.registerTool('fail', { description: 'Always fails as a tool.' }, () => ({
    content: [{ type: 'text', text: 'the tool failed' }],
    isError: true,
  }));
  const slow = server.registerTool(
    'slow',
    { inputSchema: z.object({ label: z.string() }) },
    async ({ label }, ctx) => ({
      content: [{ type: 'text', text: await runSlow(state, label, ctx.mcpReq.signal) }],
    }),
  );
  remember(server, 'echo', echo);
  remember(server, 'fail', fail);
  remember(server, 'slow', slow);
  for (const name of state.added) registerAdded(server, name);
  // Not connected yet: updating tells no one.
  for (const [name, description] of state.descriptions) describeTool(server, name, description);
  return server;
}
