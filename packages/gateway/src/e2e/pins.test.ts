/**
 * Pinned tool definitions end to end (GW-28): an upstream that changes a
 * tool's description while clients are connected, on both eras; the
 * operator accepting the change (`tools accept`, in process, on the
 * gateway's own SQLite store) and a running gateway taking it up; an
 * approval given before the change refused after it (CONF-21); the
 * unmodified server-memory behind a lock file; `onToolChange: warn`.
 */
import { join } from 'node:path';
import { silentLogger } from '@ext/core/kit';
import { type ExtendedClient, type Logger } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient, getConfirmationRequired } from '@ext/confirmation/client';
import { errorsClient } from '@ext/errors/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../config/load.js';
import { acceptTool, lockTools, type CommandIo } from '../pins/commands.js';
import { NOT_IN_LOCK_FILE } from '../pins/check.js';
import { definitionDigest } from '../pins/definition.js';
import { TOOL_DEFINITION_CHANGED } from '../pins/errors.js';
import { readLockFile, writeLockFile } from '../pins/lock-file.js';
import { PinStore } from '../pins/pin-store.js';
import { recordingLogger, serveV2, type V2Upstream } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  entitiesOnDisk,
  ERAS,
  eraOptions,
  errorOf,
  gatewayConfig,
  memoryUpstream,
  plainClient,
  serveGateway,
  tempDir,
  textOf,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterEach();

/** What `echo` says of itself once its upstream changed it. */
const CHANGED = 'Says the text back, and mails it to the author.';
/** The recheck of withheld tools runs every 5 s; the acceptance must be taken up within that, and a little. */
const ACCEPT_TAKEN_UP_MS = 6_000;

interface PinnedGateway {
  readonly upstream: V2Upstream;
  /** The era the gateway speaks to its upstream. */
  readonly upstreamEra: Era;
  readonly served: ServedGateway;
  /** The config as `tools accept` loads it: the same SQLite file the gateway keeps its pins in. */
  readonly loaded: LoadedConfig;
}

/**
 * The v2 test server, spoken to on `upstreamEra` (2025-11-25 sessions, or
 * 2026-07-28), behind a gateway keeping its pins in a SQLite file of the
 * test's own; `extra` is merged into the config.
 */
async function pinnedGateway(
  upstreamEra: Era,
  extra: Record<string, unknown> = {},
  logger?: Logger,
): Promise<PinnedGateway> {
  const upstream = await serveV2();
  closeAfter(async () => {
    upstream.releaseAll();
    await upstream.close();
  });
  const dir = await tempDir('pins');
  const config = gatewayConfig({
    upstreams: { api: { url: upstream.url, protocol: upstreamEra === 'modern' ? '2026-07-28' : '2025-11-25' } },
    identity: { anonymous: true },
    store: { sqlite: join(dir, 'gateway.db') },
    ...extra,
  });
  const served = await serveGateway(config, { store: 'config', logger });
  return { upstream, upstreamEra, served, loaded: { path: join(dir, 'gateway.yaml'), config, manifests: [] } };
}

interface ListedTool {
  readonly name: string;
  readonly description?: string | undefined;
}

interface LiveSession {
  readonly sdk: Client;
  /** The same client with `@ext/errors`, so refusals carry their structured error. */
  readonly client: ExtendedClient;
  /** Resolves with the first tool list handed over on `tools/list_changed` (after the last one matched) that `test` accepts. */
  until(test: (tools: readonly ListedTool[]) => boolean, timeoutMs?: number): Promise<readonly ListedTool[]>;
}

/**
 * An SDK v2 client on `era` (with `@ext/errors`), holding its session (or its
 * `subscriptions/listen` stream) open and keeping every tool list the SDK
 * hands over on `notifications/tools/list_changed`; returned once the
 * gateway hears its upstream's changes and the client the gateway's.
 */
async function liveSession({ upstream, upstreamEra, served }: PinnedGateway, era: Era): Promise<LiveSession> {
  const lists: (readonly ListedTool[])[] = [];
  const waiters = new Set<() => void>();
  let cursor = 0;
  const onChanged = (_error: Error | null, tools: readonly ListedTool[] | null): void => {
    lists.push(tools ?? []);
    for (const wake of waiters) wake();
  };
  const sdk = new Client(
    { name: 'pins-live', version: '0.0.0' },
    { ...eraOptions(era), listChanged: { tools: { debounceMs: 0, onChanged } } },
  );
  const client = extendClient(sdk, [errorsClient()], { logger: silentLogger });
  await sdk.connect(new StreamableHTTPClientTransport(served.url));
  closeAfter(() => sdk.close());
  await (upstreamEra === 'modern' ? upstream.whenListens(1) : upstream.legacyStreamOpen);
  await (era === 'modern' ? served.listenOpen : served.streamOpen);
  const until = (test: (tools: readonly ListedTool[]) => boolean, timeoutMs = 3_000) =>
    new Promise<readonly ListedTool[]>((resolve, reject) => {
      const check = () => {
        for (; cursor < lists.length; cursor += 1) {
          const tools = lists[cursor]!;
          if (!test(tools)) continue;
          cursor += 1;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(tools);
          return;
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(`no such tool list within ${String(timeoutMs)} ms; lists handed over: ${JSON.stringify(lists)}`),
        );
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { sdk, client, until };
}

function names(tools: readonly ListedTool[]): string[] {
  return tools.map((tool) => tool.name);
}

const listsEcho = (tools: readonly ListedTool[]) => names(tools).includes('echo');

function recording(): CommandIo & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, print: (line) => lines.push(line), logger: silentLogger };
}

/** `tools accept <name>` as the operator runs it (in process); resolves with how long the live session then waited to see it listed. */
async function acceptAndWait(gateway: PinnedGateway, live: LiveSession, name: string): Promise<number> {
  const io = recording();
  await acceptTool(gateway.loaded, name, io);
  expect(io.lines[0]).toMatch(new RegExp(`^accepted ${name} \\(api/${name}\\) in the store: sha256:`));
  expect(io.lines).toContain('  changed: description');
  const accepted = Date.now();
  await live.until(listsEcho, ACCEPT_TAKEN_UP_MS);
  return Date.now() - accepted;
}

describe('a tool changed upstream while clients are connected (pins in the store)', () => {
  it.each(ERAS)(
    'is withheld from the live session and new ones, refused, and served again once an operator accepts it (%s)',
    async (era) => {
      const logger = recordingLogger();
      const gateway = await pinnedGateway(era, {}, logger);
      const { upstream, served } = gateway;
      const live = await liveSession(gateway, era);
      expect(names((await live.sdk.listTools()).tools)).toEqual(['echo', 'fail', 'slow']);
      expect(textOf(await live.sdk.callTool({ name: 'echo', arguments: { text: 'before' } }))).toBe('before');

      upstream.changeTool('echo', { description: CHANGED });
      expect(names(await live.until((tools) => !listsEcho(tools)))).toEqual(['fail', 'slow']);
      const fresh = await plainClient(served.url, era);
      expect(names((await fresh.listTools()).tools)).toEqual(['fail', 'slow']);
      const refused = await live.client.callTool('echo', { text: 'after' });
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({
        code: TOOL_DEFINITION_CHANGED,
        category: 'permanent',
        details: { tool: 'echo', changes: ['description'] },
      });
      // A client of nothing of ours reads why in the text.
      const plain = await fresh.callTool({ name: 'echo', arguments: { text: 'after' } });
      expect(plain.isError).toBe(true);
      expect(textOf(plain)).toContain(
        'Tool "echo" is withheld: its definition changed since it was approved (description)',
      );
      expect(upstream.echoed).toEqual(['before']);
      // The other tools are served as they were.
      expect(textOf(await live.sdk.callTool({ name: 'fail', arguments: {} }))).toBe('the tool failed');
      // Another change of the upstream's tools rebuilds the offer: echo stays withheld, and is not reported again.
      upstream.addTool('later');
      expect(names(await live.until((tools) => names(tools).includes('later')))).toEqual(['fail', 'slow', 'later']);

      const waited = await acceptAndWait(gateway, live, 'echo');
      const listed = (await fresh.listTools()).tools.find((tool) => tool.name === 'echo');
      expect(listed?.description).toBe(CHANGED);
      expect(textOf(await live.sdk.callTool({ name: 'echo', arguments: { text: 'accepted' } }))).toBe('accepted');
      expect(textOf(await fresh.callTool({ name: 'echo', arguments: { text: 'fresh' } }))).toBe('fresh');
      expect(upstream.echoed).toEqual(['before', 'accepted', 'fresh']);
      expect(waited).toBeLessThan(ACCEPT_TAKEN_UP_MS);

      const pin = await new PinStore(served.gateway.store).pinned('api', 'echo');
      expect(pin).toMatchObject({ acceptedBy: expect.any(String) as string, definition: { description: CHANGED } });
      // Told once, not at each rebuild of the offer while it was withheld.
      const withheld = logger.warnings().filter((entry) => entry.message.includes('echo changed upstream'));
      expect(withheld).toHaveLength(1);
      expect(withheld[0]?.message).toContain('(description); withheld until an operator runs');
    },
  );
});

describe('an approval given for the old definition (CONF-21)', () => {
  it('does not run the changed tool once it is accepted and served again (a client of each era)', async () => {
    const gateway = await pinnedGateway('modern', { policy: { echo: { confirm: true } } });
    const { upstream, served } = gateway;
    // The 2025-era session lives through the change: its tools are registered again on the same server.
    const live = await liveSession(gateway, 'legacy');
    const approvals = await Promise.all(
      ERAS.map(async (era) => {
        const { client } = await connectClient(served.url, { era, extensions: [errorsClient(), confirmationClient()] });
        const id = client.negotiated(CONFIRMATION_ID)?.id ?? CONFIRMATION_ID;
        const args = { text: `approved before the change (${era})` };
        // The person said yes to the call as the tool was defined then: the token the retry would carry.
        const held = getConfirmationRequired(await client.callTool('echo', args), id);
        expect(held?.tool).toBe('echo');
        return { client, id, args, token: held?.confirmation_token ?? '' };
      }),
    );

    upstream.changeTool('echo', { description: CHANGED });
    await live.until((tools) => !listsEcho(tools));
    await acceptAndWait(gateway, live, 'echo');

    for (const { client, id, args, token } of approvals) {
      const retried = await client.callTool('echo', args, { meta: { [id]: { confirmation_token: token } } });
      expect(retried.isError).toBe(true);
      expect(errorOf(retried)).toMatchObject({ code: 'CONFIRMATION_ARGUMENTS_MISMATCH' });
    }
    expect(upstream.echoed).toEqual([]);

    // Asked again for the tool as it is now, the person's yes runs it.
    for (const { client, args } of approvals) {
      const asked: string[] = [];
      const confirmed = await callWithConfirmation(client, 'echo', args, {
        confirm: (request) => {
          asked.push(request.kind === 'call' ? request.tool : request.kind);
          return Promise.resolve(true);
        },
      });
      expect(textOf(confirmed)).toBe(args.text);
      expect(asked).toEqual(['echo']);
    }
    expect(upstream.echoed).toEqual(approvals.map(({ args }) => args.text));
  });
});

const MEMORY_TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];
const ADA = { name: 'ada', entityType: 'person', observations: ['wrote the first program'] };
const BOB = { name: 'bob', entityType: 'person', observations: [] };

describe('the unmodified server-memory behind a lock file', () => {
  it('serves every locked tool; withholds one whose locked definition differs, and one the lock file lacks', async () => {
    const dir = await tempDir('pins-memory');
    const file = join(dir, 'memory.jsonl');
    const lockFile = join(dir, 'gateway.lock.json');
    const config = gatewayConfig({
      upstreams: { memory: memoryUpstream(file) },
      identity: { anonymous: true },
      store: 'memory',
      pins: { lockFile },
    });
    const loaded: LoadedConfig = { path: join(dir, 'gateway.yaml'), config, manifests: [] };
    expect(await lockTools(loaded, undefined, recording())).toBe(lockFile);
    const locked = await readLockFile(lockFile);
    expect(Object.keys(locked.tools)).toEqual(MEMORY_TOOLS.map((tool) => `memory/${tool}`).sort());

    const first = await serveGateway(config);
    for (const era of ERAS) {
      const { client } = await connectClient(first.url, { era, extensions: [errorsClient()] });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(MEMORY_TOOLS);
    }
    const { client: writer } = await connectClient(first.url, { era: 'modern' });
    expect((await writer.callTool('create_entities', { entities: [ADA] })).isError).toBeFalsy();
    expect(await entitiesOnDisk(file)).toEqual(['ada']);
    await first.close();

    // The reviewed set says something else of create_entities (a valid file: its digest is recomputed), and lacks search_nodes.
    const definitions = Object.fromEntries(Object.entries(locked.tools).map(([key, entry]) => [key, entry.definition]));
    const { 'memory/search_nodes': _lacked, ...kept } = definitions;
    const create = kept['memory/create_entities']!;
    await writeLockFile(lockFile, { ...kept, 'memory/create_entities': { ...create, description: 'Adds entities.' } });
    const edited = await readLockFile(lockFile);
    expect(edited.tools['memory/create_entities']?.digest).toBe(
      definitionDigest({ ...create, description: 'Adds entities.' }),
    );

    const second = await serveGateway(config);
    const served = MEMORY_TOOLS.filter((tool) => tool !== 'create_entities' && tool !== 'search_nodes');
    for (const era of ERAS) {
      const { client } = await connectClient(second.url, { era, extensions: [errorsClient()] });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(served);
      const refused = await client.callTool('create_entities', { entities: [BOB] });
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({
        code: TOOL_DEFINITION_CHANGED,
        details: { tool: 'create_entities', changes: ['description'] },
      });
      const unreviewed = await client.callTool('search_nodes', { query: 'ada' });
      expect(errorOf(unreviewed)).toMatchObject({
        code: TOOL_DEFINITION_CHANGED,
        details: { tool: 'search_nodes', changes: [NOT_IN_LOCK_FILE] },
      });
      const graph = await client.callTool('read_graph', {});
      expect(graph.isError).toBeFalsy();
      expect(graph.structuredContent).toMatchObject({ entities: [ADA] });
    }
    expect(await entitiesOnDisk(file)).toEqual(['ada']);
    // The gateway never writes the lock file while serving.
    expect(await readLockFile(lockFile)).toEqual(edited);
  });
});

describe('onToolChange: warn', () => {
  it('serves the changed tool as it is now, and logs the change once', async () => {
    const logger = recordingLogger();
    const gateway = await pinnedGateway('modern', { pins: { onToolChange: 'warn' } }, logger);
    const { upstream, served } = gateway;
    const live = await liveSession(gateway, 'modern');

    upstream.changeTool('echo', { description: CHANGED });
    const changed = await live.until((tools) => tools.some((tool) => tool.description === CHANGED));
    expect(names(changed)).toEqual(['echo', 'fail', 'slow']);
    expect(textOf(await live.sdk.callTool({ name: 'echo', arguments: { text: 'warned' } }))).toBe('warned');
    expect(upstream.echoed).toEqual(['warned']);
    const echoChanged = () =>
      logger
        .warnings()
        .filter((entry) => entry.message.includes('echo changed upstream'))
        .map((entry) => entry.message);
    expect(echoChanged()).toEqual(['gateway: echo changed upstream (description); served (onToolChange: warn)']);

    // Another change upstream rebuilds the offer: echo still differs from its pin, but it was said already.
    upstream.addTool('later');
    await live.until((tools) => names(tools).includes('later'));
    expect(echoChanged()).toHaveLength(1);
    // Served, not accepted: the pin is still the definition first seen.
    const pin = await new PinStore(served.gateway.store).pinned('api', 'echo');
    expect(pin?.definition.description).toBe('Says the text back.');
    expect(pin?.acceptedBy).toBeUndefined();
  });
});
