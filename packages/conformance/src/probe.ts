/** The kit's MCP client: one connection to the server under test, over Streamable HTTP or stdio. */
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ToolResult } from '@ext/core';
import { toWireError } from '@ext/core/sdk-v2/client';
import { tapTransport } from './raw.js';

/** A tool as `tools/list` described it. */
export interface ListedTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: Record<string, unknown> | undefined;
  readonly _meta?: Record<string, unknown> | undefined;
}

/** Where the server under test is. */
export type Target =
  | { readonly kind: 'http'; readonly url: string; readonly headers?: Readonly<Record<string, string>> | undefined }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>> | undefined;
      readonly cwd?: string | undefined;
      /** Show the server's stderr (default: discarded). */
      readonly stderr?: 'inherit' | 'ignore' | undefined;
    };

/** What the probing client advertises. */
export interface ProbeProfile {
  /** `capabilities.extensions` to advertise (`{}`: none). */
  readonly extensions?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  /** Answers `elicitation/create` (and so advertises form elicitation). Default: no elicitation. */
  readonly elicit?: ((request: { message: string; requestedSchema: unknown }) => Promise<ElicitResult>) | undefined;
}

export interface ConnectOptions {
  /**
   * The protocol era to speak: `2026-07-28` (or a later revision) pins the
   * modern era; `legacy` or an earlier revision (`2025-11-25`) uses
   * `initialize`, where the SDK offers its newest legacy revision; `auto`
   * (default) lets the SDK negotiate (modern when the server offers it).
   */
  readonly protocolVersion?: string | undefined;
  readonly timeoutMs?: number | undefined;
}

/** A connected client that sees only the wire. */
export interface Probe {
  readonly era: 'legacy' | 'modern';
  serverExtensions(): Readonly<Record<string, unknown>>;
  serverInfo(): { name: string; version: string };
  listTools(): Promise<ListedTool[]>;
  /** `tools/call`; a JSON-RPC error arrives as a thrown `WireError`. */
  callTool(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult>;
  /** Any request (`<id>/<verb>`); a JSON-RPC error arrives as a thrown `WireError`. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Any request, its result exactly as the server sent it (`resultType`
   * included, nothing decoded by the SDK client, which refuses a task handle
   * on `tools/call`); a JSON-RPC error arrives as a thrown `WireError`.
   */
  rawRequest(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Collects notifications of one method from now on. */
  onNotification(method: string, handler: (params: Record<string, unknown>) => void): void;
  close(): Promise<void>;
}

const anyObject: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-ext-conformance',
    validate: (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'expected an object' }] },
  },
};

async function wire<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toWireError(error);
  }
}

function transportFor(target: Target): StreamableHTTPClientTransport | StdioClientTransport {
  if (target.kind === 'http') {
    return new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: target.headers === undefined ? undefined : { headers: { ...target.headers } },
    });
  }
  return new StdioClientTransport({
    command: target.command,
    args: [...target.args],
    env: target.env === undefined ? undefined : ({ ...process.env, ...target.env } as Record<string, string>),
    cwd: target.cwd,
    stderr: target.stderr ?? 'ignore',
  });
}

/** Revisions from 2026-07-28 on have no `initialize`; the SDK pins only those (earlier ones negotiate in `initialize`). */
function isModern(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2026-07-28';
}

/** Connects one probing client to the target. */
export async function connectProbe(
  target: Target,
  profile: ProbeProfile = {},
  options: ConnectOptions = {},
): Promise<Probe> {
  const version = options.protocolVersion ?? 'auto';
  const clientInfo = { name: 'mcp-ext-conformance', version: '0.1.0' };
  const capabilities: ClientCapabilities = {
    extensions: { ...(profile.extensions ?? {}) } as NonNullable<ClientCapabilities['extensions']>,
    ...(profile.elicit ? { elicitation: { form: {} } } : {}),
  };
  const client = new Client(clientInfo, {
    versionNegotiation: { mode: version === 'auto' ? 'auto' : isModern(version) ? { pin: version } : 'legacy' },
    capabilities,
  });
  const elicit = profile.elicit;
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request: ElicitRequest): Promise<ElicitResult> => {
      const params = request.params;
      if (params.mode === 'url') return { action: 'decline' };
      return elicit({ message: params.message, requestedSchema: params.requestedSchema });
    });
  }
  const timeout = options.timeoutMs ?? 30_000;
  const transport = transportFor(target);
  await client.connect(transport, { timeout });
  const rawRequest = tapTransport(transport, {
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    clientInfo,
    capabilities,
    timeoutMs: timeout,
  });
  const listeners = new Map<string, Set<(params: Record<string, unknown>) => void>>();
  return {
    get era() {
      return client.getProtocolEra() ?? 'legacy';
    },
    serverExtensions() {
      const extensions = client.getServerCapabilities()?.extensions;
      return typeof extensions === 'object' ? extensions : {};
    },
    serverInfo() {
      const info = client.getServerVersion();
      return { name: info?.name ?? 'unknown', version: info?.version ?? 'unknown' };
    },
    async listTools() {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await wire(() => client.listTools(cursor === undefined ? {} : { cursor }, { timeout }));
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            annotations: tool.annotations,
            _meta: tool._meta,
          });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    async callTool(name, args = {}, meta = {}) {
      return (await wire(() => client.callTool({ name, arguments: args, _meta: meta }, { timeout }))) as ToolResult;
    },
    request(method, params = {}) {
      return wire(() => client.request({ method, params }, anyObject, { timeout }));
    },
    rawRequest,
    onNotification(method, handler) {
      let set = listeners.get(method);
      if (!set) {
        const handlers = new Set<(params: Record<string, unknown>) => void>();
        client.setNotificationHandler(method, { params: anyObject }, (received: Record<string, unknown>) => {
          for (const listener of handlers) listener(received);
        });
        listeners.set(method, handlers);
        set = handlers;
      }
      set.add(handler);
    },
    close() {
      return client.close();
    },
  };
}
