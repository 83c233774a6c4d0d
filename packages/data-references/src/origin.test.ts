import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { get, request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type Store } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createSqliteStore } from '@ext/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReferenceOrigin } from './origin.js';
import type { ReferenceOriginOptions } from './origin-options.js';
import type { ReferenceOrigin } from './origin-types.js';
import { signedUrl } from './signing.js';

const SECRET = 'origin-test-secret-0123456789abcdef';
const KEY = Buffer.from(SECRET, 'utf8');

let dir: string;
const origins: ReferenceOrigin[] = [];
const stores: Store[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dref-origin-'));
});

afterEach(async () => {
  await Promise.all(origins.splice(0).map((origin) => origin.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await rm(dir, { recursive: true, force: true });
});

async function started(options: Partial<ReferenceOriginOptions> = {}): Promise<ReferenceOrigin> {
  const store = options.store ?? new MemoryStore();
  const origin = createReferenceOrigin({
    secret: SECRET,
    store,
    serverName: 'exporter',
    spoolDirectory: join(dir, 'spool'),
    logger: silentLogger,
    ...options,
  });
  origins.push(origin);
  await origin.listen();
  return origin;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function* chunked(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

describe('reference creation (DREF-2)', () => {
  it('DREF-2: a file, chunks and a generator each give a complete reference whose URL serves the bytes', async () => {
    const origin = await started();
    const bytes = randomBytes(100_000);
    const path = join(dir, 'data.bin');
    await writeFile(path, bytes);
    const fromFile = await origin.createReference({ path }, { mimeType: 'application/octet-stream' });
    const fromChunks = await origin.createReference(
      { chunks: chunked(bytes, 7_000) },
      { mimeType: 'application/octet-stream' },
    );
    const fromGenerator = await origin.createReference(
      { generate: (offset) => chunked(bytes.subarray(offset), 4096) },
      { mimeType: 'application/octet-stream' },
    );
    for (const reference of [fromFile, fromChunks, fromGenerator]) {
      expect(reference).toMatchObject({
        origin_server: 'exporter',
        mime_type: 'application/octet-stream',
        size_bytes: bytes.length,
        checksum: { algorithm: 'sha256', value: sha256(bytes) },
      });
      expect(reference.ref_id).toMatch(/^ref-[A-Za-z0-9_-]{22}$/);
      expect(Date.parse(reference.expires_at ?? '') - Date.now()).toBeGreaterThan(3590_000);
      const response = await fetch(reference.access_url ?? '');
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(fromChunks.ref_id).not.toBe(fromGenerator.ref_id);
  });

  it('DREF-4: references live in the shared store, so another instance with the same store and key serves a file reference', async () => {
    const store = createSqliteStore({ path: join(dir, 'refs.db') });
    stores.push(store);
    const first = await started({ store });
    const path = join(dir, 'shared.csv');
    await writeFile(path, 'a,b\n1,2\n');
    const reference = await first.createReference({ path }, { mimeType: 'text/csv' });
    const second = createReferenceOrigin({
      secret: SECRET,
      store,
      serverName: 'exporter',
      baseUrl: first.baseUrl,
      logger: silentLogger,
    });
    origins.push(second);
    const local = await second.lookup(reference.ref_id);
    expect(local?.sizeBytes).toBe(8);
    const body = await new Promise<string>((resolve, reject) => {
      second.open(reference.ref_id).then(async (stream) => {
        let text = '';
        for await (const chunk of stream) text += String(chunk);
        resolve(text);
      }, reject);
    });
    expect(body).toBe('a,b\n1,2\n');
  });

  it('DREF-2: the media type is checked so it can never inject a header', async () => {
    const origin = await started();
    await expect(
      origin.createReference({ chunks: [Buffer.from('x')] }, { mimeType: 'text/plain\r\nset-cookie: a=b' }),
    ).rejects.toThrow(/mimeType must be a media type/);
    const unstarted = createReferenceOrigin({ secret: SECRET, store: new MemoryStore(), serverName: 'x' });
    await expect(unstarted.createReference({ chunks: [Buffer.from('x')] }, { mimeType: 'text/plain' })).rejects.toThrow(
      /pass baseUrl or call listen\(\) first/,
    );
    expect(() => createReferenceOrigin({ secret: 'short', store: new MemoryStore(), serverName: 'x' })).toThrow(
      /secret must be at least 32 bytes/,
    );
  });
});

describe('serving (DREF-5 to DREF-10)', () => {
  it('DREF-8: GET and HEAD answer the bytes with type, length, ranges, ETag and digest; other methods get 405', async () => {
    const origin = await started();
    const bytes = Buffer.from('hello, reference');
    const reference = await origin.createReference({ chunks: [bytes] }, { mimeType: 'text/plain; charset=utf-8' });
    const url = reference.access_url ?? '';
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(bytes.length),
      'accept-ranges': 'bytes',
      etag: `"sha256-${sha256(bytes)}"`,
      'repr-digest': `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`,
      'x-content-type-options': 'nosniff',
    });
    expect(await response.text()).toBe('hello, reference');
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(await head.text()).toBe('');
    const post = await fetch(url, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('DREF-9: Range requests get 206 with Content-Range, 416 when unsatisfiable, and the whole payload when If-Range does not match', async () => {
    const origin = await started();
    const bytes = Buffer.from('0123456789');
    for (const source of [{ chunks: [bytes] }, { generate: (offset: number) => chunked(bytes.subarray(offset), 3) }]) {
      const reference = await origin.createReference(source, { mimeType: 'text/plain' });
      const url = reference.access_url ?? '';
      const partial = await fetch(url, { headers: { range: 'bytes=3-6' } });
      expect(partial.status).toBe(206);
      expect(partial.headers.get('content-range')).toBe('bytes 3-6/10');
      expect(partial.headers.get('content-length')).toBe('4');
      expect(await partial.text()).toBe('3456');
      const suffix = await fetch(url, { headers: { range: 'bytes=-2' } });
      expect(await suffix.text()).toBe('89');
      const resume = await fetch(url, { headers: { range: 'bytes=7-' } });
      expect(resume.status).toBe(206);
      expect(await resume.text()).toBe('789');
      const outside = await fetch(url, { headers: { range: 'bytes=10-' } });
      expect(outside.status).toBe(416);
      expect(outside.headers.get('content-range')).toBe('bytes */10');
      const etag = partial.headers.get('etag') ?? '';
      const stale = await fetch(url, { headers: { range: 'bytes=3-6', 'if-range': '"sha256-other"' } });
      expect(stale.status).toBe(200);
      expect(await stale.text()).toBe('0123456789');
      const fresh = await fetch(url, { headers: { range: 'bytes=3-6', 'if-range': etag } });
      expect(fresh.status).toBe(206);
      await fresh.body?.cancel();
      const several = await fetch(url, { headers: { range: 'bytes=0-1,4-5' } });
      expect(several.status).toBe(200);
      await several.body?.cancel();
    }
  });

  it('DREF-6: a tampered signature, id or expiry gets 403, and so does an expired URL', async () => {
    let clock = Date.now();
    const origin = await started({ now: () => clock, ttlSeconds: 60 });
    const reference = await origin.createReference(
      { chunks: [Buffer.from('secret data')] },
      { mimeType: 'text/plain' },
    );
    const url = new URL(reference.access_url ?? '');
    const flipped = new URL(url);
    const sig = flipped.searchParams.get('sig') ?? '';
    flipped.searchParams.set('sig', `${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`);
    expect((await fetch(flipped)).status).toBe(403);
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(extended)).status).toBe(403);
    const other = await origin.createReference({ chunks: [Buffer.from('other data')] }, { mimeType: 'text/plain' });
    const swapped = new URL(url);
    swapped.pathname = swapped.pathname.replace(reference.ref_id, other.ref_id);
    expect((await fetch(swapped)).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = '';
    expect((await fetch(unsigned)).status).toBe(403);
    expect((await fetch(url)).status).toBe(200);
    clock += 61_000;
    const late = await fetch(url);
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/expired/);
  });

  it('DREF-7: a validly signed URL for an unknown or revoked id gets 404; paths outside the base are not handled', async () => {
    const origin = await started();
    const unknown = signedUrl(
      origin.baseUrl,
      ['ref-unknown'],
      KEY,
      'download',
      'ref-unknown',
      Math.floor(Date.now() / 1000) + 60,
    );
    expect((await fetch(unknown)).status).toBe(404);
    const reference = await origin.createReference({ chunks: [Buffer.from('x')] }, { mimeType: 'text/plain' });
    expect(await origin.revoke(reference.ref_id)).toBe(true);
    expect((await fetch(reference.access_url ?? '')).status).toBe(404);
    expect(await origin.revoke(reference.ref_id)).toBe(false);
    expect((await fetch(new URL('/elsewhere', origin.baseUrl))).status).toBe(404);
    expect((await fetch(`${origin.baseUrl}/a/b/c`)).status).toBe(404);
  });

  it('DREF-10: a file source that changed since the reference was made is not served', async () => {
    const origin = await started();
    const path = join(dir, 'changing.txt');
    await writeFile(path, 'version 1');
    const reference = await origin.createReference({ path }, { mimeType: 'text/plain' });
    await writeFile(path, 'version 2, longer');
    expect((await fetch(reference.access_url ?? '')).status).toBe(404);
  });

  it('DREF-10: a generator is read only as fast as the client reads (backpressure), never ahead in full', async () => {
    const origin = await started();
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 1);
    let produced = 0;
    const generate = function* (offset: number): Generator<Uint8Array> {
      for (let at = offset; at < total; at += chunk.length) {
        produced += chunk.length;
        yield chunk;
      }
    };
    const reference = await origin.createReference(
      { generate, sizeBytes: total, checksum: { algorithm: 'sha256', value: '0'.repeat(64) } },
      { mimeType: 'application/octet-stream' },
    );
    const response = await new Promise<IncomingMessage>((resolve) => {
      get(reference.access_url ?? '', resolve);
    });
    let consumed = 0;
    await new Promise<void>((resolve) => {
      response.on('data', (data: Buffer) => {
        consumed += data.length;
        if (consumed >= 1024 * 1024) {
          response.pause();
          resolve();
        }
      });
    });
    // Give the server every chance to run ahead; with backpressure it stops once the socket buffers are full.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(produced).toBeLessThan(16 * 1024 * 1024);
    response.destroy();
  });
});

describe('uploads (DREF-19, DREF-20)', () => {
  async function put(
    url: string,
    body: Uint8Array | undefined,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(url, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream', ...headers } });
  }

  it('DREF-20: raw bytes PUT to a ticket URL become a reference owned by the principal who asked', async () => {
    const origin = await started({ uploads: { maxBytes: 1024 * 1024 } });
    const ticket = await origin.createUploadTicket({ mimeType: 'image/png', principal: 'alice' });
    expect(ticket).toMatchObject({ method: 'PUT', max_size_bytes: 1024 * 1024 });
    const bytes = randomBytes(300_000);
    const response = await put(ticket.upload_url, bytes);
    expect(response.status).toBe(201);
    const reference = (await response.json()) as {
      ref_id: string;
      access_url: string;
      size_bytes: number;
      mime_type: string;
      checksum: { value: string };
    };
    expect(reference).toMatchObject({
      size_bytes: bytes.length,
      mime_type: 'image/png',
      checksum: { value: sha256(bytes) },
    });
    expect(Buffer.from(await (await fetch(reference.access_url)).arrayBuffer()).equals(bytes)).toBe(true);
    expect(await origin.lookup(reference.ref_id, 'alice')).toBeDefined();
    expect(await origin.lookup(reference.ref_id, 'mallory')).toBeUndefined();
    const again = await put(ticket.upload_url, bytes);
    expect(again.status).toBe(409);
  });

  it('DREF-20: tampered and expired upload URLs get 403; a download signature cannot upload', async () => {
    let clock = Date.now();
    const origin = await started({ uploads: { ttlSeconds: 30 }, now: () => clock });
    const ticket = await origin.createUploadTicket({ mimeType: 'image/png' });
    const url = new URL(ticket.upload_url);
    const tampered = new URL(url);
    tampered.searchParams.set(
      'sig',
      `${(url.searchParams.get('sig') ?? '').slice(0, -1)}${url.searchParams.get('sig')?.endsWith('A') === true ? 'B' : 'A'}`,
    );
    expect((await put(tampered.href, Buffer.from('x'))).status).toBe(403);
    const uploadId = url.pathname.split('/').at(-1) ?? '';
    const asDownload = signedUrl(
      origin.baseUrl,
      ['uploads', uploadId],
      KEY,
      'download',
      uploadId,
      Number(url.searchParams.get('expires')),
    );
    expect((await put(asDownload, Buffer.from('x'))).status).toBe(403);
    clock += 31_000;
    expect((await put(ticket.upload_url, Buffer.from('x'))).status).toBe(403);
  });

  it('DREF-20: an upload over the limit gets 413 (declared or streamed) and leaves nothing behind', async () => {
    const origin = await started({ uploads: { maxBytes: 1000 } });
    const declared = await origin.createUploadTicket({ mimeType: 'application/octet-stream' });
    expect((await put(declared.upload_url, Buffer.alloc(1001))).status).toBe(413);
    const streamed = await origin.createUploadTicket({ mimeType: 'application/octet-stream' });
    const status = await new Promise<number | 'reset'>((resolve) => {
      const request = httpRequest(
        streamed.upload_url,
        { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', () => {
        resolve('reset');
      });
      request.write(Buffer.alloc(800));
      request.write(Buffer.alloc(800));
      request.end();
    });
    expect([413, 'reset']).toContain(status);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const left = await readdir(join(dir, 'spool')).catch(() => []);
    expect(left).toEqual([]);
    await expect(origin.createUploadTicket({ mimeType: 'image/png', sizeBytes: 5000 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      category: 'invalid_input',
    });
  });

  it('DREF-19: without uploads enabled there is no ticket and the upload path is unknown', async () => {
    const origin = await started();
    expect(origin.uploads).toBeUndefined();
    await expect(origin.createUploadTicket({ mimeType: 'image/png' })).rejects.toMatchObject({
      code: 'UPLOADS_DISABLED',
    });
    const url = signedUrl(
      origin.baseUrl,
      ['uploads', 'up-x'],
      KEY,
      'upload',
      'up-x',
      Math.floor(Date.now() / 1000) + 60,
    );
    expect((await put(url, Buffer.from('x'))).status).toBe(404);
  });
});
