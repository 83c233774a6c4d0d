/**
 * Runs a call of a registered tool with no request behind it: the way a
 * server resumes work of its own accord (a task whose previous runner died).
 * The call goes through the whole pipeline as its original caller, with
 * nothing negotiated, no way to ask anyone, and notifications going nowhere.
 */
import type { ComposedServer, DetachedCall, ToolHandler } from '../contract/extension.js';
import { createCallContext, createRequestContext } from './context.js';
import { markResumedRun } from '../cooperation/detached-run.js';
import type { Logger } from '../telemetry/logger.js';
import { PROTOCOL_VERSIONS } from '../negotiation/protocol-versions.js';
import type { Store } from '../store/store.js';
import type { ToolInfo, ToolResult } from '../contract/types.js';

/** A tool as the adapter registered it: enough to run a call of it through the pipeline. */
export interface RegisteredTool {
  readonly tool: ToolInfo;
  readonly handler: ToolHandler;
  readonly validate: (args: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

// The tools registered under each composition, by name: the newest registration wins
// (on 2026-07-28 every request builds a server and registers the same tools again).
const registries = new WeakMap<ComposedServer, Map<string, RegisteredTool>>();

/** Records a tool registered through an extended server of `composed` (the adapters do). */
export function rememberTool(composed: ComposedServer, entry: RegisteredTool): void {
  let tools = registries.get(composed);
  if (tools === undefined) {
    tools = new Map();
    registries.set(composed, tools);
  }
  tools.set(entry.tool.name, entry);
}

const nowhere = (): Promise<void> => Promise.resolve();

/**
 * Runs `call` through `composed`'s pipeline and the tool's handler on
 * `store`; rejects when no extended server of `composed` registered the
 * tool. The context is the 2026-07-28 era's with no peer: every extension
 * behaves as towards a client that speaks none of them.
 */
export async function runDetachedCall(
  composed: ComposedServer,
  store: Store,
  logger: Logger,
  call: DetachedCall,
): Promise<ToolResult> {
  const entry = registries.get(composed)?.get(call.name);
  if (entry === undefined) throw new Error(`no extended server registered the tool ${call.name}`);
  const request = createRequestContext({
    sdk: 'v2',
    era: 'modern',
    protocolVersion: PROTOCOL_VERSIONS.modern,
    authInfo: undefined,
    identity: call.identity,
    peerExtensions: {},
    negotiation: new Map(),
    signal: new AbortController().signal,
    logger,
    store,
    progressToken: undefined,
    notify: nowhere,
    elicit: undefined,
  });
  const ctx = createCallContext(request, entry.tool);
  if (call.resumes === true) markResumedRun(ctx);
  call.prepare?.(ctx);
  return composed.runToolCall(
    { name: call.name, arguments: call.arguments, meta: call.meta ?? {} },
    ctx,
    entry.handler,
    entry.validate,
  );
}
