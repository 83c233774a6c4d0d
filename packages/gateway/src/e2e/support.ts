/**
 * End-to-end support: the unmodified npm MCP servers as stdio upstreams,
 * a gateway built from a checked config and served over Streamable HTTP on
 * a free port, clients of every kind (SDK v2 on either era with or without
 * our client halves, SDK v1), and readers for what results carry.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, type ExtendedClient, type Logger, type Store } from '@ext/core';
import { silentLogger, type ClientExtensionList } from '@ext/core/kit';
import { extendClient } from '@ext/core/sdk-v2/client';
import { listen } from '@ext/core/sdk-v2/server';
import { confirmationElicitationHandler, type ConfirmationRequest } from '@ext/confirmation/client';
import { getStructuredError } from '@ext/errors/client';
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientOptions as SdkClientOptions,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { parseConfig } from '../config/load.js';
import type { GatewayConfig, StdioUpstream } from '../config/schema.js';
import { createGateway, type Gateway } from '../gateway.js';
import { binOf } from '../upstream/testing/servers.js';

const MEMORY_BIN = binOf('@modelcontextprotocol/server-memory');
const FILESYSTEM_BIN = binOf('@modelcontextprotocol/server-filesystem');

/** Protocol eras a client speaks: `legacy` is 2025-11-25 (sessions), `modern` is 2026-07-28. */
export type Era = 'legacy' | 'modern';
export const ERAS: readonly Era[] = ['legacy', 'modern'];

/** What a test opened, closed after it (newest first). */
const opened: (() => Promise<unknown>)[] = [];

/** Registers `close` to run after the current test. */
export function closeAfter(close: () => Promise<unknown>): void {
  opened.push(close);
}

/** Closes what the tests of the calling file opened; call once at the top of a test file. */
export function closeAfterEach(): void {
  afterEach(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });
}

/**
 * Closes what the tests of the calling file opened once they have all run:
 * for a file whose tests share what a `beforeAll` opened. Call it instead of
 * `closeAfterEach`, once at the top of the file.
 */
export function closeAfterAll(): void {
  afterAll(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });
}

/** A new empty folder, removed after the test. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `gateway-e2e-${prefix}-`));
  closeAfter(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `@modelcontextprotocol/server-memory` keeping its graph in `file` (JSON lines). */
export function memoryUpstream(file: string): StdioUpstream {
  return { command: process.execPath, args: [MEMORY_BIN], env: { MEMORY_FILE_PATH: file } };
}

/** `@modelcontextprotocol/server-filesystem` allowed into `root` only. */
export function filesystemUpstream(root: string): StdioUpstream {
  return { command: process.execPath, args: [FILESYSTEM_BIN, root] };
}

/** The entity names server-memory has written to `file` (its state on disk, read without the gateway). */
export async function entitiesOnDisk(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; name?: string })
    .filter((item) => item.type === 'entity')
    .map((item) => String(item.name));
}

/** `document` checked as a config file's content would be (a mistake in a test's config fails loudly). */
export function gatewayConfig(document: Record<string, unknown>): GatewayConfig {
  return parseConfig(JSON.stringify(document), { format: 'json', source: 'test-config.json' });
}

export interface ServedGateway {
  readonly gateway: Gateway;
  /** The MCP endpoint. */
  readonly url: URL;
  /** Resolves once a 2025-era client's stream for server messages (its `GET`) is open. */
  readonly streamOpen: Promise<void>;
  /** Resolves once a 2026-07-28 client's `subscriptions/listen` stream is open. */
  readonly listenOpen: Promise<void>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Default: a new in-memory store; `'config'`: the store the config names, opened by the gateway. */
  readonly store?: Store | 'config' | undefined;
  /** The gateway's logger. Default: silent. */
  readonly logger?: Logger | undefined;
}

/** A gateway for `config`, served over Streamable HTTP on a free port; closed after the test. */
export async function serveGateway(config: GatewayConfig, options: ServeOptions = {}): Promise<ServedGateway> {
  const store = options.store === 'config' ? undefined : (options.store ?? new MemoryStore());
  const gateway = await createGateway(config, { store, logger: options.logger ?? silentLogger });
  let opened: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => {
    opened = resolve;
  });
  let listened: () => void = () => undefined;
  const listenOpen = new Promise<void>((resolve) => {
    listened = resolve;
  });
  const handler = {
    identifiesCallers: gateway.http.identifiesCallers,
    wellKnown: gateway.http.wellKnown,
    pages: gateway.http.pages,
    async fetch(request: Request, options?: Parameters<Gateway['http']['fetch']>[1]): Promise<Response> {
      const response = await gateway.http.fetch(request, options);
      if (request.method === 'GET' && response.ok) opened();
      if (request.headers.get('mcp-method') === 'subscriptions/listen' && response.ok) listened();
      return response;
    },
    close: () => gateway.http.close(),
  };
  const listening = await listen(handler, { port: 0, ...config.listen, logger: silentLogger });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= listening.close().then(() => gateway.close());
    return closing;
  };
  closeAfter(close);
  return { gateway, url: new URL(listening.url), streamOpen, listenOpen, close };
}

/** SDK v2 client options that speak `era`. */
export function eraOptions(era: Era): { versionNegotiation: { mode: 'legacy' | { pin: '2026-07-28' } } } {
  return { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } };
}

export interface ClientOptions {
  readonly era: Era;
  /** Our client halves; none makes a plain client that only carries the SDK adapter. */
  readonly extensions?: ClientExtensionList | undefined;
  /** Answers in-band confirmation prompts (the SDK client then declares it can elicit). */
  readonly elicit?: ((request: ConfirmationRequest) => Promise<boolean>) | undefined;
  readonly headers?: Record<string, string> | undefined;
}

export interface ConnectedClient {
  readonly client: ExtendedClient;
  readonly sdk: Client;
}

/** An SDK v2 client over Streamable HTTP, extended with `options.extensions`; closed after the test. */
export async function connectClient(url: URL, options: ClientOptions): Promise<ConnectedClient> {
  const elicit = options.elicit;
  const sdk = new Client(
    { name: 'e2e-client', version: '0.0.0' },
    { ...eraOptions(options.era), ...(elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } }) },
  );
  if (elicit !== undefined) sdk.setRequestHandler('elicitation/create', confirmationElicitationHandler(elicit));
  const client = extendClient(sdk, options.extensions ?? [], { logger: silentLogger });
  await sdk.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...options.headers } } }));
  closeAfter(() => sdk.close());
  return { client, sdk };
}

/** A plain SDK v2 client (nothing of ours) over Streamable HTTP on `era`; closed after the test. */
export async function plainClient(url: URL, era: Era): Promise<Client> {
  const sdk = new Client({ name: 'plain-client', version: '0.0.0' }, eraOptions(era));
  await sdk.connect(new StreamableHTTPClientTransport(url));
  closeAfter(() => sdk.close());
  return sdk;
}

/** A plain SDK v1 client (`@modelcontextprotocol/sdk`) over Streamable HTTP; closed after the test. */
export async function v1Client(url: URL): Promise<V1Client> {
  const sdk = new V1Client({ name: 'v1-client', version: '0.0.0' });
  await sdk.connect(new V1Transport(url));
  closeAfter(() => sdk.close());
  return sdk;
}

export interface ToolListWatch {
  /** The SDK v2 client option: the SDK lists the tools again on each notification and hands the list over. */
  readonly listChanged: NonNullable<SdkClientOptions['listChanged']>;
  /** The names of the first list handed over. */
  readonly changed: Promise<string[]>;
}

/** Watches a client's tool list for `notifications/tools/list_changed`. */
export function watchToolList(): ToolListWatch {
  let announce: (names: string[]) => void = () => undefined;
  const changed = new Promise<string[]>((resolve) => {
    announce = resolve;
  });
  const onChanged = (_error: Error | null, tools: readonly { name: string }[] | null): void => {
    announce((tools ?? []).map((tool) => tool.name));
  };
  return { changed, listChanged: { tools: { debounceMs: 0, onChanged } } };
}

/** The first text block of a result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  const blocks = Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : [];
  const first = blocks.find((block) => block.type === 'text');
  return typeof first?.text === 'string' ? first.text : '';
}

/** The structured error a failed result carries (any client sees it in `_meta`); throws when there is none. */
export function errorOf(result: unknown): NonNullable<ReturnType<typeof getStructuredError>> {
  const error = getStructuredError(result);
  if (error === undefined) throw new Error(`expected a structured error, got ${JSON.stringify(result)}`);
  return error;
}

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The `mcp-ext-gateway` command compiled from `src/cli.ts` for this test
 * file (into a folder of its own inside the package, so it finds the
 * package's dependencies as `dist/cli.js` does, and `dist/` is left alone);
 * read the path once the file's tests run.
 */
export function compiledCli(): { readonly path: string } {
  const compiled = { path: '' };
  beforeAll(async () => {
    const outDir = await mkdtemp(join(PACKAGE_DIR, 'node_modules', '.e2e-cli-'));
    const { build } = await import('tsup');
    await build({
      config: false,
      entry: { cli: join(PACKAGE_DIR, 'src', 'cli.ts') },
      format: ['esm'],
      target: 'node20',
      outDir,
      skipNodeModulesBundle: true,
      silent: true,
    });
    compiled.path = join(outDir, 'cli.js');
  });
  afterAll(async () => {
    if (compiled.path !== '') await rm(join(compiled.path, '..'), { recursive: true, force: true });
  });
  return compiled;
}
