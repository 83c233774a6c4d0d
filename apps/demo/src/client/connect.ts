/**
 * Connects a v2 client to the tracker, over HTTP or by spawning the stdio
 * server, pinned to one protocol era, with or without the errors extension,
 * and optionally declaring content-negotiation feature tags.
 */
import type { ClientExtension, ExtendedClient } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2';
import { contentNegotiationClient } from '@ext/content-negotiation/client';
import { errorsClient } from '@ext/errors/client';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { RecordingTransport } from './wire.js';

/** The first protocol revision without `initialize`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export type Era = 'modern' | 'legacy';

export type Target =
  | {
      readonly kind: 'http';
      readonly url: URL;
      /** The caller's bearer token, when the server authenticates. */ readonly token?: string | undefined;
    }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>> | undefined;
    };

export interface ConnectOptions {
  readonly era: Era;
  /** Advertise and use `@ext/errors` (default `true`); `false` is a plain MCP client. */
  readonly withErrors?: boolean | undefined;
  /** Content-negotiation feature tags to declare (e.g. `['agent']`); none: the extension is not advertised. */
  readonly features?: readonly string[] | undefined;
  readonly name?: string | undefined;
  /** More client halves to attach (idempotency, transactions, session state...). */
  readonly extensions?: readonly ClientExtension[] | undefined;
}

export interface Connection {
  readonly client: Client;
  /** The extension-aware view; `undefined` for a plain client. */
  readonly extended: ExtendedClient | undefined;
  readonly wire: RecordingTransport;
  close(): Promise<void>;
}

function transportFor(target: Target): Transport {
  if (target.kind === 'http') {
    const headers = target.token === undefined ? undefined : { authorization: `Bearer ${target.token}` };
    return new StreamableHTTPClientTransport(target.url, { requestInit: { headers } });
  }
  return new StdioClientTransport({
    command: target.command,
    args: [...target.args],
    env: { ...getDefaultEnvironment(), ...target.env },
    stderr: 'inherit',
  });
}

export async function connect(target: Target, options: ConnectOptions): Promise<Connection> {
  const client = new Client(
    { name: options.name ?? 'tracker-tour', version: '0.0.0' },
    { versionNegotiation: { mode: options.era === 'modern' ? { pin: MODERN_PROTOCOL_VERSION } : 'legacy' } },
  );
  const halves = [
    options.withErrors !== false && errorsClient(),
    options.features !== undefined && contentNegotiationClient({ features: options.features }),
    ...(options.extensions ?? []),
  ];
  const extended = halves.some(Boolean) ? extendClient(client, halves) : undefined;
  const wire = new RecordingTransport(transportFor(target));
  await client.connect(wire);
  return { client, extended, wire, close: () => client.close() };
}
