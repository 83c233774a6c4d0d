/** The data-references benchmark: a server-to-server transfer by reference against relaying it through the client. */
import { performance } from 'node:perf_hooks';
import type { ExtendedClient } from '@ext/core';
import { dataReferencesClient, importReference, referencesIn } from '@ext/data-references/client';
import { startChild, type ChildServer } from './child.js';
import { httpClient, RssSampler } from './loopback.js';
import { formatBytes, formatDuration, markdownTable, outcome, type BenchSection } from './markdown.js';
import type { TransferAnswer, TransferCommand } from './transfer-server.js';

const MIB = 1024 * 1024;

/** How big the relay's chunks are: base64 of 2 MiB stays under the SDKs' default 4 MiB request limit. */
const RELAY_CHUNK = 2 * MIB;

function formatThroughput(bytes: number, ms: number): string {
  return `${(bytes / MIB / (ms / 1000)).toFixed(0)} MiB/s`;
}

type TransferServer = ChildServer<TransferCommand, TransferAnswer>;

interface World {
  readonly a: TransferServer;
  readonly b: TransferServer;
  /** The data set's sha256, from server A. */
  readonly sha256: string;
  readonly clientA: ExtendedClient;
  readonly clientB: ExtendedClient;
  close(): Promise<void>;
}

function urlOf(server: TransferServer): string {
  if (server.ready.type !== 'ready') throw new Error('data references: a transfer server did not start');
  return server.ready.url;
}

async function world(size: number): Promise<World> {
  const entry = new URL('./transfer-server.js', import.meta.url);
  const a = await startChild<TransferCommand, TransferAnswer>(entry, ['exporter', String(size)]);
  const started: TransferServer[] = [a];
  try {
    const b = await startChild<TransferCommand, TransferAnswer>(entry, ['importer', String(size), urlOf(a)]);
    started.push(b);
    const clientA = await httpClient(`${urlOf(a)}/mcp`, [dataReferencesClient()]);
    const clientB = await httpClient(`${urlOf(b)}/mcp`, [dataReferencesClient()]);
    return {
      a,
      b,
      sha256: a.ready.type === 'ready' ? a.ready.sha256 : '',
      clientA,
      clientB,
      async close() {
        await clientA.close();
        await clientB.close();
        await a.stop();
        await b.stop();
      },
    };
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    throw error;
  }
}

async function byReference(world: World): Promise<void> {
  const [reference] = referencesIn(await world.clientA.callTool('export'));
  if (reference === undefined) throw new Error('data references: the export returned no reference');
  const answer = await importReference(world.clientB, reference, { timeoutMs: 3_600_000 });
  if (answer?.status !== 'imported') throw new Error(`data references: the import failed: ${JSON.stringify(answer)}`);
}

async function relay(world: World, size: number): Promise<void> {
  for (let offset = 0; offset < size; offset += RELAY_CHUNK) {
    const result = await world.clientA.callTool('read_chunk', { offset, length: RELAY_CHUNK }, { timeoutMs: 600_000 });
    const block = result.content[0] as { resource?: { blob?: unknown } } | undefined;
    const blob = block?.resource?.blob;
    if (typeof blob !== 'string') throw new Error('data references: read_chunk returned no blob');
    const written = await world.clientB.callTool('write_chunk', { data: blob }, { timeoutMs: 600_000 });
    if (written.isError === true)
      throw new Error(`data references: write_chunk failed: ${JSON.stringify(written.content)}`);
  }
}

async function ended(server: TransferServer): Promise<Extract<TransferAnswer, { type: 'ended' }>> {
  const answer = await server.request({ type: 'end' });
  if (answer.type !== 'ended') throw new Error(`data references: expected the end of a transfer, got ${answer.type}`);
  return answer;
}

export interface DataReferencesBenchOptions {
  /** Bytes moved. Default 1 GiB, or 256 MiB with `quick`. */
  readonly sizeBytes?: number | undefined;
  readonly quick?: boolean | undefined;
  readonly progress?: ((text: string) => void) | undefined;
}

interface Run {
  readonly label: string;
  readonly ms: number;
  /** Peak RSS rise of server A, server B and the client. */
  readonly rise: { readonly a: number; readonly b: number; readonly client: number };
  readonly wireBytes: number;
}

/**
 * A server-to-server transfer of 1 GiB: by reference (server A returns a
 * reference, server B imports it over HTTP) against relaying it through the
 * client (2 MiB base64 chunks read from A and written to B with tool calls).
 * A and B are separate processes; the client is this one; all on loopback
 * HTTP. Both ways verify the sha256 of what B received. Reports throughput,
 * wall time and the peak RSS rise of each of the three processes.
 */
export async function benchDataReferences(options: DataReferencesBenchOptions = {}): Promise<BenchSection> {
  const size = options.sizeBytes ?? (options.quick === true ? 256 * MIB : 1024 * MIB);
  const progress = options.progress ?? ((): void => undefined);
  const runs: Run[] = [];
  const setup = await world(size);
  const client = new RssSampler();
  try {
    for (const [label, run] of [
      ['by reference (A serves, B imports over HTTP)', () => byReference(setup)],
      [`relayed through the client (${formatBytes(RELAY_CHUNK)} base64 chunks)`, () => relay(setup, size)],
    ] as const) {
      await setup.a.request({ type: 'begin' });
      await setup.b.request({ type: 'begin' });
      client.start();
      const started = performance.now();
      await run();
      const ms = performance.now() - started;
      const clientRise = client.stop();
      const a = await ended(setup.a);
      const b = await ended(setup.b);
      if (b.receivedBytes !== size || b.receivedSha256 !== setup.sha256) {
        throw new Error(`data references: ${label} delivered ${String(b.receivedBytes)} bytes with the wrong digest`);
      }
      const row: Run = {
        label,
        ms,
        rise: { a: a.riseBytes, b: b.riseBytes, client: clientRise },
        wireBytes: a.wireBytes + b.wireBytes,
      };
      progress(
        `data-references ${label.padEnd(52)} ${formatThroughput(size, ms).padStart(11)}  RSS A +${formatBytes(row.rise.a)}, B +${formatBytes(row.rise.b)}, client +${formatBytes(row.rise.client)}`,
      );
      runs.push(row);
    }
  } finally {
    await setup.close();
  }
  const [reference, relayed] = runs as [Run, Run];
  const speedup = relayed.ms / reference.ms;
  const memoryLimit = 64 * MIB;
  const serverRise = Math.max(reference.rise.a, reference.rise.b);
  const targets = [
    {
      name: 'by reference at least 3x faster than relaying through the client',
      met: speedup >= 3,
      detail: `${speedup.toFixed(1)}x`,
    },
    {
      name: "moving the data by reference raises neither server process's RSS by 64 MiB or more",
      met: serverRise < memoryLimit,
      detail: `A +${formatBytes(reference.rise.a)}, B +${formatBytes(reference.rise.b)}`,
    },
  ];
  const table = markdownTable(
    ['transfer', 'wall time', 'throughput', 'bytes on the wire', 'peak RSS rise, server A', 'server B', 'client'],
    runs.map((run) => [
      run.label,
      formatDuration(run.ms),
      formatThroughput(size, run.ms),
      formatBytes(run.wireBytes),
      `+${formatBytes(run.rise.a)}`,
      `+${formatBytes(run.rise.b)}`,
      `+${formatBytes(run.rise.client)}`,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const markdown = `Moving ${formatBytes(size)} from server A to server B. **By reference**: a tool on A
returns a \`DataReference\` (\`@ext/data-references\`), the client passes it to
B's \`import\` method, and B fetches the bytes from A's origin over HTTP,
streaming and verifying sha256 as they arrive. **Relayed**: the client reads
the data from A and writes it to B with ordinary tool calls, ${formatBytes(RELAY_CHUNK)} of
base64 per call (so each request stays under the SDKs' default 4 MiB body
limit), one call at a time. A and B are two server processes, the client is
a third; all talk over real HTTP on 127.0.0.1 (MCP over Streamable HTTP,
2026-07-28 era). B hashes what it receives both ways and the run fails if
the digest differs. "Bytes on the wire" counts every byte through both
servers' sockets. "Peak RSS rise" is, for each process, the largest resident
set size sampled every 10 ms during the transfer minus the size just before
it (after a full garbage collection).

${table}

**Target ${outcome(targets[0])}: by reference is ${speedup.toFixed(1)}x as fast as relaying through the client (target: at least 3x).**
**Target ${outcome(targets[1])}: moving the data by reference raised server A's RSS by ${formatBytes(reference.rise.a)} and server B's by ${formatBytes(reference.rise.b)} (target: under 64 MiB each).**`;
  return { title: 'Data references: server-to-server transfer', markdown, targets };
}
