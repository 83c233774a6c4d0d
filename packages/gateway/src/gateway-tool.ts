/** An upstream tool as the gateway offers it: its exposed name, where it lives, and the policy that applies. */
import type { CallRetry } from './call-safety.js';
import type { ResolvedToolPolicy } from './policy/resolve.js';

export interface GatewayTool {
  /** The name clients call (`<upstream>__<tool>` when the gateway has several upstreams). */
  readonly name: string;
  /** The upstream it lives on, and its name there. */
  readonly upstream: string;
  readonly upstreamName: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: Record<string, unknown> | undefined;
  /** The policy after manifests, config entries and safe defaults were applied. */
  readonly policy: ResolvedToolPolicy;
}

/** Calls a tool on an upstream by its name there; `retry` says how it may be tried again (default: only unsent). */
export type CallUpstream = (
  upstream: string,
  tool: string,
  args: Record<string, unknown>,
  options: { readonly signal: AbortSignal; readonly retry?: CallRetry | undefined },
) => Promise<Record<string, unknown>>;
