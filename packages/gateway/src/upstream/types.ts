/**
 * The public shapes of the gateway's upstream side: a tool as an upstream
 * lists it, a connection to one upstream, and the options they take.
 */
import type { Logger } from '@ext/core';
import type { CallToolResult, Implementation, Tool, ToolAnnotations } from '@modelcontextprotocol/client';
import type { UpstreamRecorder } from '../metrics/recorder.js';
import type { BreakerState, UpstreamObserver } from './resilience.js';
import type { CallSafety } from './retry-decision.js';

/** A tool as its upstream lists it (the fields the gateway passes on, unchanged). */
export interface UpstreamTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Tool['inputSchema'];
  readonly outputSchema?: Tool['outputSchema'];
  readonly annotations?: ToolAnnotations;
  readonly _meta?: Record<string, unknown>;
}

/** How a call to an upstream tool runs. */
export interface UpstreamCallOptions {
  /** Aborting it cancels the upstream request (`notifications/cancelled`, or the request's stream on 2026-07-28). */
  readonly signal?: AbortSignal | undefined;
  /** Sent as the request's `_meta`. */
  readonly meta?: Record<string, unknown> | undefined;
  /**
   * What makes the call safe to send again after it may have reached the
   * upstream. Default: nothing, so it is retried only after faults before
   * it was sent.
   */
  readonly safety?: CallSafety | undefined;
  /** Tries in all, the first included, instead of the upstream's `retry.attempts`. */
  readonly attempts?: number | undefined;
}

/** Called when an upstream's tool list may have changed; read the new one with `tools()`. */
export type ToolsChangedListener = () => void;

/** One upstream MCP server, connected (and reconnected once when its connection drops). */
export interface UpstreamConnection {
  /** The upstream's name in the config. */
  readonly name: string;
  /**
   * Its tools, as listed. Cached; listed again after the upstream sends
   * `notifications/tools/list_changed` or after a reconnect. When listing
   * again fails, the last list is returned (the failure is logged).
   */
  tools(): Promise<readonly UpstreamTool[]>;
  /** Registers `listener` for tool-list changes; returns the function that removes it. */
  onToolsChanged(listener: ToolsChangedListener): () => void;
  /**
   * Calls a tool. A tool error (`isError: true`) is returned as it is; a
   * fault of the upstream (unreachable, exited, too slow, a JSON-RPC error)
   * is thrown as an `ExtensionError`; an aborted `signal` rejects with its
   * reason. Transient faults are retried within the upstream's `timeoutMs`
   * as `options.safety` allows; while the upstream's breaker is open the
   * call fails at once (transient, with `retry_after_seconds`).
   */
  callTool(name: string, args: Record<string, unknown>, options?: UpstreamCallOptions): Promise<CallToolResult>;
  /** Its circuit breaker's state now. */
  breakerState(): BreakerState;
  /** Whether a connection to it is open now (`false` while it is down, or before it first answered). */
  isConnected(): boolean;
  /** Registers `observer` for its breaker changes and retries; returns the function that removes it. */
  observe(observer: UpstreamObserver): () => void;
  /** Closes the connection (a stdio upstream's process ends). */
  close(): Promise<void>;
}

export interface ConnectUpstreamOptions {
  /** Where outages are reported (once when one starts, once when it ends) and a stdio upstream's stderr (`debug`). */
  readonly logger: Logger;
  /** The client the gateway presents itself as to the upstream. */
  readonly clientInfo: Implementation;
  /**
   * An HTTP upstream that cannot be reached at first (a transient fault) is
   * served as unavailable, with no tools, and connected again in the
   * background with backoff, instead of failing: its tools appear (tools
   * changed) once it answers. Default `false`.
   */
  readonly servesWhileDown?: boolean | undefined;
  /** Told when the upstream starts and stops answering and when it is connected again. Default: nobody. */
  readonly recorder?: UpstreamRecorder | undefined;
}
