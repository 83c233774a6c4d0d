/**
 * What the client adapters of both SDK lines share: a tool call through
 * every client half, and requests sent under a CLIENT span whose trace
 * context travels in `params._meta`.
 */
import type { ComposedClient, NegotiationTable, OutgoingCall } from '../contract/client-extension.js';
import { isRecord } from '../kit/records.js';
import { clientCallOutcome } from '../telemetry/semconv.js';
import { observeClientCall, paramsWithMeta } from '../telemetry/telemetry-client.js';
import type { ToolResult } from '../contract/types.js';

/**
 * Sends `call` once every client half added its per-call data, and hands the
 * result to every half before returning it.
 */
export async function callThroughHalves(
  composed: ComposedClient,
  table: NegotiationTable,
  call: OutgoingCall,
  send: (call: OutgoingCall) => Promise<ToolResult>,
): Promise<ToolResult> {
  for (const half of composed.extensions) await half.prepareCall?.(call, table.get(half.name));
  const result = await send(call);
  for (const half of composed.extensions) half.onResult?.(result, call, table.get(half.name));
  return result;
}

/** `send()` of a tool call, under a CLIENT span unless telemetry is off; `call.meta` carries the span's context. */
export function observedToolCall(
  composed: ComposedClient,
  call: OutgoingCall,
  send: () => Promise<ToolResult>,
): Promise<ToolResult> {
  if (!composed.telemetry) return send();
  return observeClientCall({ method: 'tools/call', tool: call.name, meta: call.meta }, send, clientCallOutcome);
}

/** `send(params)` of an extension method request, under a CLIENT span unless telemetry is off. */
export function observedRequest(
  composed: ComposedClient,
  method: string,
  params: Record<string, unknown>,
  send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  if (!composed.telemetry) return send(params);
  const meta = { ...(isRecord(params._meta) ? params._meta : undefined) };
  return observeClientCall({ method, meta }, () => send(paramsWithMeta(params, meta)), clientCallOutcome);
}
