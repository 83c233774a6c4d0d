/** What the v1 server adapter keeps per extended McpServer, shared by the files that serve it. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ComposedServer, ServingServer } from '../contract/extension.js';
import type { NegotiationTable } from '../contract/client-extension.js';
import type { ServerAdapterOptions } from '../contract/host.js';
import type { Logger } from '../telemetry/logger.js';
import type { Store } from '../store/store.js';
import type { ConnectionChannel } from '../contract/types.js';

/** The SDK's per-request context (`extra`). */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The original `registerTool`, and a guard under which the adapter itself installs handlers. */
export interface RawRegistration {
  readonly register: McpServer['registerTool'];
  readonly allowing: <T>(run: () => T) => T;
}

/** One extended McpServer, as every part of the adapter sees it. */
export interface ServerState {
  readonly server: McpServer;
  readonly composed: ComposedServer;
  readonly store: Store;
  readonly logger: Logger;
  readonly options: ServerAdapterOptions;
  protocolVersion: string | undefined;
  /** The negotiation with the client's `initialize` capabilities, negotiated again only when they change. */
  readonly negotiation: () => NegotiationTable;
  /** The current connection, set on each `connect`. */
  connection: ConnectionChannel | undefined;
  /** What `RequestContext.server` carries for this server. */
  readonly serving: ServingServer;
  /** Tools registered through the extended server: their calls bypass McpServer's own argument check. */
  readonly tools: Map<
    string,
    (args: Record<string, unknown>, extra: Extra, params?: Record<string, unknown>) => Promise<CallToolResult>
  >;
  /** The raw McpServer's registration, which only the adapter may use. */
  readonly raw: RawRegistration;
}
