/**
 * "Sheets", the demo's second MCP server: it imports CSV files from other
 * servers by data reference (the bytes travel server to server, streamed
 * and checked against their sha256, never through the client) and
 * summarizes them. Streamable HTTP on 127.0.0.1, SDK v2, both eras.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServer, MemoryStore, type ComposedServer, type Logger, type Store } from '@ext/core';
import { consoleLogger } from '@ext/core/kit';
import { createHttpHandler, extendServer } from '@ext/core/sdk-v2';
import { createReferenceOrigin, dataReferencesServer, type ReferenceOrigin } from '@ext/data-references/server';
import type { OriginPolicy } from '@ext/data-references';
import { errorsServer } from '@ext/errors/server';
import { McpServer } from '@modelcontextprotocol/server';
import { defaultConsoleDir } from '../console/console-files.js';
import { createRequestListener, stopServing } from '../server/http-listener.js';
import { registerSheetSummary } from './summary.js';

export const SHEETS_INFO = { name: 'sheets', version: '0.0.0' } as const;

/** Largest file sheets imports. */
export const MAX_SHEET_BYTES = 64 * 1024 * 1024;

export interface SheetsServerOptions {
  /** Exact origins (`http://127.0.0.1:4100`) whose references sheets fetches, or a predicate; nothing else is fetched. */
  readonly allowedOrigins: OriginPolicy;
  /** Default 0 (a free port). */
  readonly port?: number | undefined;
  readonly store?: Store | undefined;
  readonly logger?: Logger | undefined;
}

export interface RunningSheetsServer {
  /** The MCP endpoint. */
  readonly url: URL;
  readonly composed: ComposedServer;
  /** Where imported files are kept (each import becomes a reference of this origin). */
  readonly origin: ReferenceOrigin;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts sheets on Streamable HTTP; resolves once it listens. */
export async function startSheetsServer(options: SheetsServerOptions): Promise<RunningSheetsServer> {
  const logger = options.logger ?? consoleLogger;
  const store = options.store ?? new MemoryStore();
  const origin = createReferenceOrigin({ secret: randomBytes(32), store, serverName: SHEETS_INFO.name, logger });
  await origin.listen({ host: '127.0.0.1', port: 0 });
  const composed = composeServer(
    [
      errorsServer(),
      dataReferencesServer({ origin, import: { allowedOrigins: options.allowedOrigins, maxBytes: MAX_SHEET_BYTES } }),
    ],
    { logger },
  );
  const handler = createHttpHandler(
    () => {
      const mcp = new McpServer(SHEETS_INFO, {
        instructions: 'Import CSV files by data reference, then summarize them with sheet_summary.',
      });
      const extended = extendServer(mcp, composed, { store, logger });
      registerSheetSummary(extended);
      return mcp;
    },
    // Sheets keeps only what it imported, and serves whoever runs on this machine: one shared caller.
    { anonymous: 'shared', logger },
  );
  let authority = '127.0.0.1';
  const server = createServer(
    createRequestListener(handler, () => `http://${authority}`, logger, { console: { dir: defaultConsoleDir() } }),
  );
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  authority = `127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  let closing: Promise<void> | undefined;
  return {
    url: new URL('/mcp', `http://${authority}`),
    composed,
    origin,
    server,
    close() {
      closing ??= (async () => {
        await stopServing(server, handler);
        await origin.close();
        await store.close();
      })();
      return closing;
    },
  };
}
