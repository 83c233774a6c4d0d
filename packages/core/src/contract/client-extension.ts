/** The client half of an extension, and the client side after composition. */
import type { Logger } from '../telemetry/logger.js';
import type { ExtensionHalf } from './extension-half.js';
import type { NegotiatedExtension, ToolResult } from './types.js';

export type NegotiationTable = ReadonlyMap<string, NegotiatedExtension>;

/** A tool call as a client half sees it before it is sent. */
export interface OutgoingCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `params._meta` to send; client halves add their own key. */
  readonly meta: Record<string, unknown>;
}

/** The client half of an extension. */
export interface ClientExtension extends ExtensionHalf {
  readonly side: 'client';
  /** Adds this extension's per-call data (`params._meta[id]`) when negotiated. */
  readonly prepareCall?:
    ((call: OutgoingCall, negotiated: NegotiatedExtension | undefined) => void | Promise<void>) | undefined;
  /** Reads the result's `_meta[id]` (e.g. to remember a session token). */
  readonly onResult?:
    ((result: ToolResult, call: OutgoingCall, negotiated: NegotiatedExtension | undefined) => void) | undefined;
}

/** The client side after composition. */
export interface ComposedClient {
  readonly extensions: readonly ClientExtension[];
  readonly logger: Logger;
  /** Whether requests are traced and carry their trace context (`ComposeOptions.telemetry`). */
  readonly telemetry: boolean;
  capabilities(): Record<string, Record<string, unknown>>;
  negotiate(peerExtensions: unknown): NegotiationTable;
}
