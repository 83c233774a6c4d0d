import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, WireError, type ExtendedServer, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  getDataReferencesSettings,
  importReference,
  dataReferencesClient,
  referencesIn,
  requestUpload,
  uploadData,
} from './client.js';
import { DATA_REFERENCES_ID, referenceResult, type DataReference } from './index.js';
import {
  createReferenceOrigin,
  dataReferencesServer,
  referencesOf,
  registerDataReferenceTools,
  type ReferenceOrigin,
} from './server.js';

const SECRET_A = 'exporter-secret-0123456789abcdef0123';
const SECRET_B = 'importer-secret-0123456789abcdef0123';
const seeds = seedValidators();
const validReference = seeds.check('data-references', 'DataReference');
const validImport = seeds.check('data-references', 'ImportFromRefResponse');
const validError = seeds.check('error');

const PAYLOAD = randomBytes(1_500_000);

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function* chunked(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

let dir: string;
const open: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dref-e2e-'));
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
  await rm(dir, { recursive: true, force: true });
});

async function startOrigin(serverName: string, secret: string, now?: () => number): Promise<ReferenceOrigin> {
  const origin = createReferenceOrigin({
    secret,
    store: new MemoryStore(),
    serverName,
    uploads: { maxBytes: 4 * 1024 * 1024 },
    spoolDirectory: join(dir, serverName),
    logger: silentLogger,
    now,
  });
  open.push(origin);
  await origin.listen();
  return origin;
}

function exporterTools(server: ExtendedServer): void {
  server.registerTool('export_data', { description: 'Exports the data set by reference' }, async (_args, ctx) => {
    const reference = await referencesOf(ctx).create(
      { chunks: chunked(PAYLOAD, 100_000) },
      { mimeType: 'application/octet-stream', name: 'data.bin' },
    );
    return referenceResult(reference, { text: `Exported ${String(PAYLOAD.length)} bytes.` });
  });
  server.registerTool(
    'digest',
    { description: "sha256 of one of the caller's references", inputSchema: z.object({ ref_id: z.string() }) },
    async ({ ref_id }, ctx) => {
      const hash = createHash('sha256');
      for await (const chunk of await referencesOf(ctx).open(ref_id)) hash.update(chunk as Buffer);
      return { content: [{ type: 'text', text: hash.digest('hex') }] };
    },
  );
  server.registerTool(
    'import_here',
    {
      description: 'Imports a reference the caller passes',
      inputSchema: z.object({ reference: z.record(z.string(), z.unknown()) }),
    },
    async ({ reference }, ctx) => {
      const response = await referencesOf(ctx).importReference(reference as DataReference);
      return { content: [{ type: 'text', text: response.status }], structuredContent: { ...response } };
    },
  );
}

interface World {
  readonly a: TestPair;
  readonly b: TestPair;
  readonly originA: ReferenceOrigin;
  readonly originB: ReferenceOrigin;
}

async function world(line: TestLine, options: { client?: boolean; clockA?: () => number } = {}): Promise<World> {
  const originA = await startOrigin('exporter', SECRET_A, options.clockA);
  const originB = await startOrigin('importer', SECRET_B);
  const client = options.client !== false;
  const a = await createTestPair({
    line,
    serverExtensions: [errorsServer(), dataReferencesServer({ origin: originA })],
    clientExtensions: [errorsClient(), client && dataReferencesClient()],
    setup: exporterTools,
    serverOptions: { logger: silentLogger, store: originA.store },
    clientOptions: { logger: silentLogger },
  });
  open.push(a);
  const b = await createTestPair({
    line,
    serverExtensions: [
      errorsServer(),
      dataReferencesServer({ origin: originB, import: { allowedOrigins: [new URL(originA.baseUrl).origin] } }),
    ],
    clientExtensions: [errorsClient(), client && dataReferencesClient()],
    setup: (server) => {
      registerDataReferenceTools(server);
    },
    serverOptions: { logger: silentLogger, store: originB.store },
    clientOptions: { logger: silentLogger },
  });
  open.push(b);
  return { a, b, originA, originB };
}

async function bytesAt(url: string | undefined): Promise<Buffer> {
  const response = await fetch(url ?? '');
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

function linkOf(result: ToolResult): Record<string, unknown> | undefined {
  return result.content.find((block) => block.type === 'resource_link');
}

describe.each(TEST_LINES)('data references end to end on %s', (line) => {
  it('DREF-1: each server advertises what it does with references', async () => {
    const { a, b } = await world(line);
    expect(getDataReferencesSettings(a.client)).toEqual({
      version: '1.0',
      origin_server: 'exporter',
      upload: { max_size_bytes: 4 * 1024 * 1024, ttl_seconds: 300 },
    });
    expect(getDataReferencesSettings(b.client)).toMatchObject({
      version: '1.0',
      origin_server: 'importer',
      import: { max_size_bytes: 1024 ** 3 },
    });
  });

  it('DREF-2 DREF-3: a tool returns a reference in _meta and a resource_link; the signed URL serves the bytes', async () => {
    const { a } = await world(line);
    const result = await a.client.callTool('export_data');
    const [reference] = referencesIn(result);
    expect(reference).toBeDefined();
    expect(validReference(reference).errors).toBe('');
    expect(reference).toMatchObject({
      origin_server: 'exporter',
      size_bytes: PAYLOAD.length,
      checksum: { algorithm: 'sha256', value: sha256(PAYLOAD) },
    });
    expect(linkOf(result)).toMatchObject({
      uri: reference?.access_url,
      mimeType: 'application/octet-stream',
      size: PAYLOAD.length,
    });
    expect((await bytesAt(reference?.access_url)).equals(PAYLOAD)).toBe(true);
  });

  it("DREF-11 DREF-14: server B imports server A's reference directly, verified, and serves its own copy", async () => {
    const { a, b } = await world(line);
    const [reference] = referencesIn(await a.client.callTool('export_data'));
    const response = await importReference(b.client, reference as DataReference);
    expect(response).toMatchObject({
      status: 'imported',
      size_bytes: PAYLOAD.length,
      reference: { origin_server: 'importer', checksum: { value: sha256(PAYLOAD) } },
    });
    expect(validImport(response).errors).toBe('');
    expect(response?.imported_resource_id).toBe(response?.reference?.ref_id);
    expect((await bytesAt(response?.reference?.access_url)).equals(PAYLOAD)).toBe(true);
  });

  it('DREF-14: a checksum mismatch is reported as a failed import with a structured error', async () => {
    const { a, b } = await world(line);
    const [reference] = referencesIn(await a.client.callTool('export_data'));
    const tampered = {
      ...(reference as DataReference),
      checksum: { algorithm: 'sha256' as const, value: sha256(Buffer.from('forged')) },
    };
    const response = await importReference(b.client, tampered);
    expect(response).toMatchObject({ status: 'failed', error: { code: 'CHECKSUM_MISMATCH', category: 'permanent' } });
    expect(validImport(response).errors).toBe('');
    expect(validError(response?.error).errors).toBe('');
  });

  it('DREF-6 DREF-12: a tampered URL is refused by the origin, and an origin outside the allow-list by the importer', async () => {
    const { a, b } = await world(line);
    const [reference] = referencesIn(await a.client.callTool('export_data'));
    const url = new URL(reference?.access_url ?? '');
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 86_400));
    expect(await importReference(b.client, { ...(reference as DataReference), access_url: url.href })).toMatchObject({
      status: 'failed',
      error: { code: 'ACCESS_DENIED' },
    });
    const foreign = new URL(reference?.access_url ?? '');
    foreign.hostname = 'localhost';
    expect(
      await importReference(b.client, { ...(reference as DataReference), access_url: foreign.href }),
    ).toMatchObject({ status: 'failed', error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });

  it("DREF-12a: a server without an import policy answers a tool's import of another server's reference as failed ORIGIN_NOT_ALLOWED", async () => {
    const { a, originB } = await world(line);
    const foreign = {
      ref_id: 'ref-elsewhere',
      origin_server: 'importer',
      mime_type: 'image/png',
      access_url: `${originB.baseUrl}/ref-elsewhere?expires=1&sig=x`,
    };
    const result = await a.client.callTool('import_here', { reference: foreign });
    expect(result.isError).not.toBe(true);
    const response = result.structuredContent;
    expect(response).toMatchObject({
      status: 'failed',
      error: {
        code: 'ORIGIN_NOT_ALLOWED',
        category: 'permanent',
        details: { ref_id: 'ref-elsewhere', origin_server: 'importer' },
      },
    });
    expect(validImport(response).errors).toBe('');
    expect(validError((response as { error?: unknown }).error).errors).toBe('');
    expect(response).toMatchObject({
      error: { suggestion: 'Send the data inline, or upload it to this server and pass the reference it returns.' },
    });
  });

  it('DREF-12b: a caller that cannot upload here (the extension not negotiated) is not told to upload', async () => {
    const { a, originB } = await world(line, { client: false });
    const foreign = {
      ref_id: 'ref-elsewhere',
      origin_server: 'importer',
      mime_type: 'image/png',
      access_url: `${originB.baseUrl}/ref-elsewhere?expires=1&sig=x`,
    };
    const response = (await a.client.callTool('import_here', { reference: foreign })).structuredContent;
    expect(response).toMatchObject({
      status: 'failed',
      error: { code: 'ORIGIN_NOT_ALLOWED', suggestion: 'Send the data inline instead.' },
    });
  });

  it("DREF-6 DREF-17: once the origin's URL has expired, the origin refuses it and the import fails", async () => {
    let clock = Date.now();
    const { a, b } = await world(line, { clockA: () => clock });
    const [reference] = referencesIn(await a.client.callTool('export_data'));
    clock += 3601_000;
    // The importer's own clock still says the reference is valid; the origin decides.
    const response = await importReference(b.client, reference as DataReference);
    expect(response).toMatchObject({ status: 'failed', error: { code: 'ACCESS_DENIED', category: 'permanent' } });
    expect(validImport(response).errors).toBe('');
    expect((await fetch(reference?.access_url ?? '')).status).toBe(403);
  });

  it('DREF-11: malformed import params are a JSON-RPC -32602 error naming the field', async () => {
    const { b } = await world(line);
    const failure = await b.client
      .request(`${DATA_REFERENCES_ID}/import`, { ref_id: 7, origin_server: 'x' })
      .catch((error: unknown) => error);
    expect(WireError.isInstance(failure)).toBe(true);
    expect((failure as WireError).code).toBe(-32602);
    expect((failure as WireError).data).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { field: 'ref_id' },
    });
  });

  it('DREF-19 DREF-20: a client uploads raw bytes out of band and a tool reads them by reference', async () => {
    const { a } = await world(line);
    const bytes = randomBytes(600_000);
    const reference = await uploadData(a.client, bytes, { mimeType: 'image/png' });
    expect(reference).toMatchObject({ origin_server: 'exporter', mime_type: 'image/png', size_bytes: bytes.length });
    expect(validReference(reference).errors).toBe('');
    const digest = await a.client.callTool('digest', { ref_id: reference?.ref_id ?? '' });
    expect(digest.content[0]).toMatchObject({ text: sha256(bytes) });
    await expect(uploadData(a.client, randomBytes(5 * 1024 * 1024), { mimeType: 'image/png' })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'PAYLOAD_TOO_LARGE' },
    });
  });
});

describe.each(TEST_LINES)('data references degrade for a client without the extension on %s', (line) => {
  it('DREF-3 DREF-22: no _meta entry, but a resource_link that works; the client helpers answer undefined', async () => {
    const { a, b } = await world(line, { client: false });
    const result = await a.client.callTool('export_data');
    expect(result._meta?.[DATA_REFERENCES_ID]).toBeUndefined();
    expect(referencesIn(result)).toEqual([]);
    const link = linkOf(result);
    expect((await bytesAt(typeof link?.uri === 'string' ? link.uri : undefined)).equals(PAYLOAD)).toBe(true);
    expect(getDataReferencesSettings(b.client)).toBeUndefined();
    expect(await requestUpload(a.client, { mimeType: 'image/png' })).toBeUndefined();
    expect(await uploadData(a.client, Buffer.from('x'), { mimeType: 'image/png' })).toBeUndefined();
  });

  it('DREF-18: a tools-only client imports through the import_from_ref tool, passing on the link it got', async () => {
    const { a, b } = await world(line, { client: false });
    const link = linkOf(await a.client.callTool('export_data'));
    // All a model sees: the link's uri, name and description.
    const args = { ref_id: String(link?.name), origin_server: 'exporter', access_url: String(link?.uri) };
    const result = await b.client.callTool('import_from_ref', args);
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'imported', size_bytes: PAYLOAD.length });
    expect(validImport(result.structuredContent).errors).toBe('');
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^Imported 1500000 bytes as ref-/) as string,
    });
  });
});
