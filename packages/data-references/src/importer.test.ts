import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { seedValidators } from '@ext/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importFromReference } from './importer.js';
import { resolveImportPolicy, type ImportPolicy } from './import-policy.js';
import { createReferenceOrigin } from './origin.js';
import type { ReferenceOrigin } from './origin-types.js';
import { fileSink, type SinkFactory } from './sinks.js';
import type { DataReference, ImportFromRefResponse } from './schema.js';

const SECRET = 'importer-test-secret-0123456789abcdef';
const validResponse = seedValidators().check('data-references', 'ImportFromRefResponse');

let dir: string;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dref-import-'));
});

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await rm(dir, { recursive: true, force: true });
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function* chunked(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function origin(options: { ttlSeconds?: number; host?: string } = {}): Promise<ReferenceOrigin> {
  const created = createReferenceOrigin({
    secret: SECRET,
    store: new MemoryStore(),
    serverName: 'exporter',
    spoolDirectory: join(dir, 'spool'),
    logger: silentLogger,
    ttlSeconds: options.ttlSeconds,
  });
  closers.push(() => created.close());
  await created.listen({ host: options.host });
  return created;
}

/** A plain HTTP server for origins that misbehave on purpose; counts requests and keeps their Range headers. */
async function server(
  handler: (req: IncomingMessage, res: ServerResponse, count: number) => void,
): Promise<{ url: string; requests: (string | undefined)[] }> {
  const requests: (string | undefined)[] = [];
  const http: Server = createServer((req, res) => {
    requests.push(req.headers.range);
    handler(req, res, requests.length);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => {
          resolve();
        });
      }),
  );
  return { url: `http://127.0.0.1:${String((http.address() as AddressInfo).port)}`, requests };
}

function policy(overrides: Partial<ImportPolicy> = {}): ReturnType<typeof resolveImportPolicy> {
  return resolveImportPolicy({ allowedOrigins: (url) => url.hostname === '127.0.0.1', ...overrides }, 'test');
}

const files = (): SinkFactory => fileSink(join(dir, 'imports'));

async function imported(): Promise<string[]> {
  return readdir(join(dir, 'imports')).catch(() => []);
}

function expectFailed(response: ImportFromRefResponse, code: string): void {
  expect(response.status).toBe('failed');
  expect(response.error?.code).toBe(code);
  expect(validResponse(response).errors).toBe('');
}

function fixed(bytes: Uint8Array, url: string): DataReference {
  return {
    ref_id: 'ref-fixed',
    origin_server: 'fixed',
    mime_type: 'application/octet-stream',
    size_bytes: bytes.length,
    access_url: url,
    checksum: { algorithm: 'sha256', value: sha256(bytes) },
  };
}

describe('importing (DREF-11 to DREF-17)', () => {
  it('DREF-14: streams the bytes into the sink, verifies sha256, and answers imported', async () => {
    const source = await origin();
    const bytes = randomBytes(2_000_000);
    const reference = await source.createReference(
      { chunks: chunked(bytes, 65_536) },
      { mimeType: 'application/octet-stream' },
    );
    const response = await importFromReference(reference, policy(), files());
    expect(response).toMatchObject({ status: 'imported', size_bytes: bytes.length });
    expect(validResponse(response).errors).toBe('');
    const [name] = await imported();
    expect(name).toBe(response.imported_resource_id);
    expect((await readFile(join(dir, 'imports', name ?? ''))).equals(bytes)).toBe(true);
  });

  it('DREF-14: a checksum mismatch is detected and the partial data discarded', async () => {
    const source = await origin();
    const reference = await source.createReference(
      { chunks: [randomBytes(100_000)] },
      { mimeType: 'application/octet-stream' },
    );
    const tampered = {
      ...reference,
      checksum: { algorithm: 'sha256' as const, value: sha256(Buffer.from('something else')) },
    };
    const response = await importFromReference(tampered, policy(), files());
    expectFailed(response, 'CHECKSUM_MISMATCH');
    expect(response.error).toMatchObject({
      category: 'permanent',
      details: { algorithm: 'sha256', expected: tampered.checksum.value, actual: reference.checksum?.value },
    });
    expect(await imported()).toEqual([]);
  });

  it('DREF-12: an origin outside the allow-list is refused before any request', async () => {
    const { url, requests } = await server((_req, res) => res.end('x'));
    const response = await importFromReference(
      fixed(Buffer.from('x'), `${url}/refs/a`),
      policy({ allowedOrigins: ['https://files.example.com'] }),
      files(),
    );
    expectFailed(response, 'ORIGIN_NOT_ALLOWED');
    expect(response.error?.details).toEqual({ origin: url });
    expect(requests).toEqual([]);
  });

  it('DREF-12: non-http(s) URLs are refused', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/a', 'data:application/octet-stream;base64,eA==']) {
      expectFailed(
        await importFromReference(fixed(Buffer.from('x'), url), policy({ allowedOrigins: () => true }), files()),
        'UNSUPPORTED_URL',
      );
    }
  });

  it('DREF-12: expired, oversized, unverifiable and md5-only references are refused before any request', async () => {
    const { url, requests } = await server((_req, res) => res.end('x'));
    const reference = fixed(Buffer.from('x'), `${url}/a`);
    expectFailed(
      await importFromReference(
        { ...reference, expires_at: new Date(Date.now() - 1000).toISOString() },
        policy(),
        files(),
      ),
      'REFERENCE_EXPIRED',
    );
    const large = await importFromReference({ ...reference, size_bytes: 2000 }, policy({ maxBytes: 1000 }), files());
    expectFailed(large, 'PAYLOAD_TOO_LARGE');
    expect(large.error?.details).toEqual({ size_bytes: 2000, max_size_bytes: 1000 });
    expectFailed(
      await importFromReference(
        { ...reference, checksum: { algorithm: 'md5', value: 'a'.repeat(32) } },
        policy(),
        files(),
      ),
      'CHECKSUM_UNSUPPORTED',
    );
    expect(requests).toEqual([]);
    const { checksum: _none, ...unverifiable } = reference;
    expectFailed(await importFromReference(unverifiable, policy(), files()), 'CHECKSUM_MISSING');
    expect(await imported()).toEqual([]);
    const accepted = await importFromReference(unverifiable, policy({ requireChecksum: false }), files());
    expect(accepted.status).toBe('imported');
  });

  it("DREF-14: without a checksum in the reference, the origin's Repr-Digest is verified instead", async () => {
    const source = await origin();
    const reference = await source.createReference({ chunks: [Buffer.from('digest me')] }, { mimeType: 'text/plain' });
    const { checksum: _omitted, ...bare } = reference;
    expect(await importFromReference(bare, policy(), files())).toMatchObject({ status: 'imported', size_bytes: 9 });
    const bytes = Buffer.from('actual bytes');
    const lying = await server((_req, res) => {
      res.writeHead(200, { 'repr-digest': `sha-256=:${createHash('sha256').update('other bytes').digest('base64')}:` });
      res.end(bytes);
    });
    const { checksum: _none, ...unverified } = fixed(bytes, `${lying.url}/a`);
    expectFailed(await importFromReference(unverified, policy(), files()), 'CHECKSUM_MISMATCH');
  });

  it('DREF-13: a redirect to another host is refused without contacting it; one within the origin is followed', async () => {
    const bytes = Buffer.from('redirected payload');
    const elsewhere = await server((_req, res) => res.end(bytes));
    const redirecting = await server((req, res) => {
      if (req.url === '/same') {
        res.writeHead(307, { location: '/final' }).end();
        return;
      }
      if (req.url === '/final') {
        res.end(bytes);
        return;
      }
      // Another host: same machine, but "localhost" is not the origin's host "127.0.0.1".
      res.writeHead(302, { location: `${elsewhere.url.replace('127.0.0.1', 'localhost')}/steal` }).end();
    });
    const refused = await importFromReference(
      fixed(bytes, `${redirecting.url}/away`),
      policy({ allowedOrigins: () => true }),
      files(),
    );
    expectFailed(refused, 'REDIRECT_REFUSED');
    expect(elsewhere.requests).toEqual([]);
    const followed = await importFromReference(fixed(bytes, `${redirecting.url}/same`), policy(), files());
    expect(followed).toMatchObject({ status: 'imported', size_bytes: bytes.length });
  });

  it('DREF-14: the size limit holds on the bytes actually sent, with or without a declared length', async () => {
    const bytes = randomBytes(5000);
    const chunkedOrigin = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(bytes.subarray(0, 2500));
      res.end(bytes.subarray(2500));
    });
    const { size_bytes: _unknown, ...undeclared } = fixed(bytes, `${chunkedOrigin.url}/a`);
    expectFailed(await importFromReference(undeclared, policy({ maxBytes: 3000 }), files()), 'PAYLOAD_TOO_LARGE');
    expect(await imported()).toEqual([]);
    const lying = await importFromReference({ ...undeclared, size_bytes: 100 }, policy(), files());
    expectFailed(lying, 'SIZE_MISMATCH');
  });

  it('DREF-16: a dropped transfer is resumed with a Range request from the last byte received', async () => {
    const bytes = randomBytes(3_000_000);
    const flaky = await server((req, res, count) => {
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      if (range !== null) {
        const start = Number(range[1]);
        res.writeHead(206, {
          'content-length': String(bytes.length - start),
          'content-range': `bytes ${String(start)}-${String(bytes.length - 1)}/${String(bytes.length)}`,
        });
        res.end(bytes.subarray(start));
        return;
      }
      res.writeHead(200, { 'content-length': String(bytes.length) });
      res.write(bytes.subarray(0, 1_000_000), () => {
        // The connection drops after the first megabyte, once it has left.
        if (count === 1) setTimeout(() => res.socket?.destroy(), 50);
      });
    });
    const response = await importFromReference(fixed(bytes, `${flaky.url}/a`), policy(), files());
    expect(response).toMatchObject({ status: 'imported', size_bytes: bytes.length });
    expect(flaky.requests[0]).toBeUndefined();
    expect(flaky.requests[1]).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(flaky.requests[1] ?? '')?.[0])).toBeGreaterThan(0);
    const [name] = await imported();
    expect((await readFile(join(dir, 'imports', name ?? ''))).equals(bytes)).toBe(true);
  });

  it('DREF-16: an origin that cannot resume (answers 200 again) fails the import', async () => {
    const bytes = randomBytes(2_000_000);
    const stubborn = await server((_req, res) => {
      res.writeHead(200, { 'content-length': String(bytes.length) });
      res.write(bytes.subarray(0, 500_000), () => setTimeout(() => res.socket?.destroy(), 50));
    });
    expectFailed(await importFromReference(fixed(bytes, `${stubborn.url}/a`), policy(), files()), 'TRANSFER_FAILED');
    expect(await imported()).toEqual([]);
  });

  it('DREF-15: a transfer still running when the reference expires is stopped', async () => {
    const source = await origin({ ttlSeconds: 1 });
    const slow = async function* (offset: number): AsyncGenerator<Uint8Array> {
      for (let at = offset; at < 100; at += 10) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        yield Buffer.alloc(10, 1);
      }
    };
    const reference = await source.createReference(
      { generate: slow, sizeBytes: 100, checksum: { algorithm: 'sha256', value: sha256(Buffer.alloc(100, 1)) } },
      { mimeType: 'application/octet-stream' },
    );
    const response = await importFromReference(reference, policy(), files());
    expectFailed(response, 'REFERENCE_EXPIRED');
    expect(await imported()).toEqual([]);
  });

  it("DREF-17: the origin's refusals map to structured failures", async () => {
    const source = await origin();
    const reference = await source.createReference({ chunks: [Buffer.from('data')] }, { mimeType: 'text/plain' });
    const url = new URL(reference.access_url ?? '');
    url.searchParams.set('sig', 'A'.repeat(43));
    expectFailed(await importFromReference({ ...reference, access_url: url.href }, policy(), files()), 'ACCESS_DENIED');
    await source.revoke(reference.ref_id);
    expectFailed(await importFromReference(reference, policy(), files()), 'REFERENCE_NOT_FOUND');
    const broken = await server((_req, res) => res.writeHead(503).end());
    const unavailable = await importFromReference(fixed(Buffer.from('x'), `${broken.url}/a`), policy(), files());
    expectFailed(unavailable, 'TRANSFER_FAILED');
    expect(unavailable.error?.category).toBe('transient');
  });

  it('DREF-14: memory stays flat: importing 256 MiB raises RSS by far less than the payload', async () => {
    const source = await origin();
    const total = 256 * 1024 * 1024;
    const block = randomBytes(1024 * 1024);
    const generate = function* (offset: number): Generator<Uint8Array> {
      for (let at = offset; at < total; at += block.length)
        yield at === offset && offset % block.length !== 0 ? block.subarray(offset % block.length) : block;
    };
    const hash = createHash('sha256');
    for (let at = 0; at < total; at += block.length) hash.update(block);
    const reference = await source.createReference(
      { generate, sizeBytes: total, checksum: { algorithm: 'sha256', value: hash.digest('hex') } },
      { mimeType: 'application/octet-stream' },
    );
    let written = 0;
    const discard: SinkFactory = () => ({
      writable: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          written += chunk.length;
          callback();
        },
      }),
      commit: () => Promise.resolve({ importedResourceId: 'discarded' }),
      abort: () => Promise.resolve(),
    });
    globalThis.gc?.();
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const response = await importFromReference(reference, policy(), discard);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(response).toMatchObject({ status: 'imported', size_bytes: total });
    expect(written).toBe(total);
    // Buffering the payload would raise RSS by at least its size. What streaming costs is the
    // runtime's own slack, not a share of the payload: on Node 20 under 64 MiB; on Node 24, whose
    // heap grows lazier, about 95 MiB whether 256 MiB or 1 GiB is imported.
    expect(peak - before).toBeLessThan(total / 2);
  });
});
