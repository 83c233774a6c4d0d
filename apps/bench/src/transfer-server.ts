/**
 * One of the two servers of the transfer benchmark, in its own process so
 * that each server's memory is its own. `exporter <bytes>` (server A) holds
 * the data set: it exports it by reference and serves it in base64 chunks.
 * `importer <bytes> <origin>` (server B) imports references from that
 * origin and takes base64 chunks, hashing what arrives and keeping nothing.
 * Started by `data-references.ts`; it talks over the IPC channel only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { referenceResult } from '@ext/data-references';
import {
  createReferenceOrigin,
  dataReferencesServer,
  referencesOf,
  type ReferenceOrigin,
  type SinkFactory,
} from '@ext/data-references/server';
import * as z from 'zod';
import { failStart, serveCommands, tell, type Message } from './child.js';
import { countingServer, mcpEndpoint, RssSampler, type CountingServer, type McpEndpoint } from './loopback.js';

/** Parent -> child: `begin` before a transfer, `end` after it, then `stop`. */
export type TransferCommand = { readonly type: 'begin' } | { readonly type: 'end' } | { readonly type: 'stop' };

/** Child -> parent. */
export type TransferAnswer =
  | { readonly type: 'ready'; readonly url: string; readonly sha256: string }
  | { readonly type: 'begun' }
  | {
      readonly type: 'ended';
      /** Peak RSS rise of this process since `begin`. */
      readonly riseBytes: number;
      /** Bytes through this server's sockets since `begin`. */
      readonly wireBytes: number;
      /** What the importer received since `begin`, and its sha256 (the exporter reports 0 and ""). */
      readonly receivedBytes: number;
      readonly receivedSha256: string;
    };

const MIB = 1024 * 1024;

/** A data set of `size` bytes made of one random 1 MiB block repeated, readable from any offset. */
function payload(size: number): { generate: (offset: number) => Generator<Uint8Array>; sha256: string } {
  const block = randomBytes(MIB);
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += block.length) hash.update(block.subarray(0, Math.min(block.length, size - at)));
  return {
    sha256: hash.digest('hex'),
    *generate(offset: number) {
      let at = offset;
      while (at < size) {
        const start = at % block.length;
        const chunk = block.subarray(start, Math.min(block.length, start + size - at));
        at += chunk.length;
        yield chunk;
      }
    },
  };
}

/** Hashes and counts what it receives, keeping nothing. */
class Counter {
  #hash = createHash('sha256');
  bytes = 0;

  take(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    this.#hash.update(chunk);
  }

  /** The digest so far; starts over. */
  digest(): string {
    const digest = this.#hash.digest('hex');
    this.#hash = createHash('sha256');
    this.bytes = 0;
    return digest;
  }
}

interface Role {
  readonly server: CountingServer;
  readonly sha256: string;
  readonly received: Counter | undefined;
  close(): Promise<void>;
}

async function exporter(size: number): Promise<Role> {
  const data = payload(size);
  const store = new MemoryStore();
  // The HTTP server starts first: the origin's public URL needs its port.
  const routes: { origin?: ReferenceOrigin; mcp?: McpEndpoint } = {};
  const server = await countingServer((req, res) => {
    if (routes.origin?.handle(req, res) !== true) routes.mcp?.handle(req, res, server.url);
  });
  const origin = createReferenceOrigin({
    secret: randomBytes(32),
    store,
    serverName: 'exporter',
    baseUrl: `${server.url}/refs`,
    logger: silentLogger,
  });
  const mcp = mcpEndpoint([dataReferencesServer({ origin })], store, (extended) => {
    extended.registerTool('export', { description: 'Exports the data set by reference' }, async (_args, ctx) => {
      const reference = await referencesOf(ctx).create(
        // The producer knows its digest, as it does when it wrote the data.
        { generate: data.generate, sizeBytes: size, checksum: { algorithm: 'sha256', value: data.sha256 } },
        { mimeType: 'application/octet-stream' },
      );
      return referenceResult(reference);
    });
    extended.registerTool(
      'read_chunk',
      {
        description: 'Reads part of the data set, base64',
        inputSchema: z.object({ offset: z.number().int(), length: z.number().int() }),
      },
      ({ offset, length }) => {
        const parts: Uint8Array[] = [];
        let left = Math.min(length, size - offset);
        for (const chunk of data.generate(offset)) {
          if (left <= 0) break;
          const part = chunk.subarray(0, left);
          parts.push(part);
          left -= part.length;
        }
        const blob = Buffer.concat(parts).toString('base64');
        return {
          content: [
            {
              type: 'resource',
              resource: { uri: `data-set:${String(offset)}`, mimeType: 'application/octet-stream', blob },
            },
          ],
        };
      },
    );
  });
  routes.origin = origin;
  routes.mcp = mcp;
  return {
    server,
    sha256: data.sha256,
    received: undefined,
    async close() {
      await mcp.close();
      await origin.close();
      await server.close();
    },
  };
}

async function importer(size: number, allowedOrigin: string): Promise<Role> {
  const store = new MemoryStore();
  const received = new Counter();
  const discard: SinkFactory = () => ({
    writable: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received.take(chunk);
        callback();
      },
    }),
    commit: () => Promise.resolve({ importedResourceId: 'counted' }),
    abort: () => Promise.resolve(),
  });
  const routes: { mcp?: McpEndpoint } = {};
  const server = await countingServer((req, res) => {
    routes.mcp?.handle(req, res, server.url);
  });
  const mcp = mcpEndpoint(
    [dataReferencesServer({ import: { allowedOrigins: [allowedOrigin], sink: discard, maxBytes: size } })],
    store,
    (extended) => {
      extended.registerTool(
        'write_chunk',
        { description: 'Appends part of the data set, base64', inputSchema: z.object({ data: z.string() }) },
        ({ data }) => {
          received.take(Buffer.from(data, 'base64'));
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      );
    },
  );
  routes.mcp = mcp;
  return {
    server,
    sha256: '',
    received,
    async close() {
      await mcp.close();
      await server.close();
    },
  };
}

async function main(): Promise<void> {
  const [role, sizeText, origin] = process.argv.slice(2);
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size) || size <= 0)
    throw new Error(`transfer server: bad size ${JSON.stringify(sizeText)}`);
  let served: Role;
  if (role === 'exporter') served = await exporter(size);
  else if (role === 'importer' && origin !== undefined) served = await importer(size, origin);
  else
    throw new Error(
      `transfer server: expected "exporter <bytes>" or "importer <bytes> <origin>", got ${JSON.stringify(process.argv.slice(2))}`,
    );
  const sampler = new RssSampler();
  let wireBefore = 0;
  serveCommands(
    (command: Message) => {
      if (command.type === 'begin') {
        served.received?.digest();
        wireBefore = served.server.bytes();
        sampler.start();
        return Promise.resolve({ type: 'begun' } satisfies TransferAnswer);
      }
      const riseBytes = sampler.stop();
      const receivedBytes = served.received?.bytes ?? 0;
      const receivedSha256 = served.received?.digest() ?? '';
      return Promise.resolve({
        type: 'ended',
        riseBytes,
        wireBytes: served.server.bytes() - wireBefore,
        receivedBytes,
        receivedSha256,
      } satisfies TransferAnswer);
    },
    () => served.close(),
  );
  tell({ type: 'ready', url: served.server.url, sha256: served.sha256 } satisfies TransferAnswer);
}

main().catch(failStart);
