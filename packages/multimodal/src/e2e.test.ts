import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type ExtendedServer, type ToolResult } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, seedValidators, TEST_LINES, type TestLine, type TestPair } from '@ext/core/testing';
import { isDataReference } from '@ext/data-references';
import { dataReferencesClient } from '@ext/data-references/client';
import { createReferenceOrigin, dataReferencesServer, type ReferenceOrigin } from '@ext/data-references/server';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { binaryInput, getMultimodalSettings, multimodalClient, toolMediaTypes } from './client.js';
import { MULTIMODAL_ID } from './index.js';
import { binaryInputSchema, inputsOf, multimodalServer, openInput } from './server.js';

const validError = seedValidators().check('error');
const LIMIT = 2_000_000;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

let dir: string;
const open: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'multimodal-e2e-'));
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
  await rm(dir, { recursive: true, force: true });
});

class Fixture {
  runs = 0;
  readonly setup = (server: ExtendedServer): void => {
    const analyze = async (
      image: unknown,
      ctx: Parameters<Parameters<ExtendedServer['registerTool']>[2]>[1],
    ): Promise<ToolResult> => {
      this.runs += 1;
      const hash = createHash('sha256');
      for await (const chunk of await openInput(ctx, image)) hash.update(chunk as Buffer);
      return { content: [{ type: 'text', text: `${inputsOf(ctx)[0]?.kind ?? 'none'} ${hash.digest('hex')}` }] };
    };
    server.registerTool(
      'analyze_image',
      {
        description: 'Describes an image',
        inputSchema: z.object({ image: binaryInputSchema() }),
        _meta: {
          [MULTIMODAL_ID]: {
            input_types: ['image/png', 'image/jpeg'],
            output_types: ['application/json'],
            max_input_size_bytes: LIMIT,
          },
        },
      },
      ({ image }, ctx) => analyze(image, ctx),
    );
    server.registerTool(
      'store_anything',
      {
        description: 'Stores any file',
        inputSchema: z.object({ file: binaryInputSchema() }),
        _meta: { [MULTIMODAL_ID]: { input_types: ['image/png'], accepts_unlisted_types: true } },
      },
      ({ file }, ctx) => analyze(file, ctx),
    );
  };
}

interface PairOptions {
  readonly client?: boolean;
  readonly outOfBand?: boolean;
}

async function pair(
  line: TestLine,
  fixture: Fixture,
  options: PairOptions = {},
): Promise<{ pair: TestPair; origin: ReferenceOrigin }> {
  const store = new MemoryStore();
  const origin = createReferenceOrigin({
    secret: 'multimodal-test-secret-0123456789abcdef',
    store,
    serverName: 'vision',
    uploads: { maxBytes: 8 * 1024 * 1024 },
    spoolDirectory: dir,
    logger: silentLogger,
  });
  open.push(origin);
  await origin.listen();
  const outOfBand = options.outOfBand ?? true;
  const client = options.client !== false;
  const created = await createTestPair({
    line,
    serverExtensions: [
      errorsServer(),
      dataReferencesServer({ origin }),
      multimodalServer({ outOfBand, mimeTypes: ['image/*'] }),
    ],
    clientExtensions: [
      errorsClient(),
      client && dataReferencesClient(),
      client && multimodalClient({ minOutOfBandBytes: 1024, mimeTypes: ['image/*', 'text/plain'] }),
    ],
    setup: fixture.setup,
    serverOptions: { logger: silentLogger, store },
    clientOptions: { logger: silentLogger },
  });
  open.push(created);
  return { pair: created, origin };
}

function png(bytes: Uint8Array): Record<string, unknown> {
  return { type: 'image', data: Buffer.from(bytes).toString('base64'), mimeType: 'image/png' };
}

function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

describe.each(TEST_LINES)('multimodal end to end on %s', (line) => {
  it("MM-1 MM-2: advertises its settings and each tool's media declaration", async () => {
    const {
      pair: { client },
    } = await pair(line, new Fixture());
    expect(getMultimodalSettings(client)).toEqual({
      version: '1.0',
      binary_transport: ['base64', 'data-reference'],
      mimeTypes: ['image/*'],
    });
    const tools = Object.fromEntries((await client.listTools()).map((tool) => [tool.name, toolMediaTypes(tool)]));
    expect(tools.analyze_image).toEqual({
      input_types: ['image/png', 'image/jpeg'],
      output_types: ['application/json'],
      max_input_size_bytes: LIMIT,
      accepts_unlisted_types: false,
      binary_transport: ['base64', 'data-reference'],
    });
    expect(tools.store_anything?.accepts_unlisted_types).toBe(true);
  });

  it('MM-4 MM-5: an inline image over the limit is PAYLOAD_TOO_LARGE and the tool never runs', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture);
    const small = randomBytes(1000);
    expect(textOf(await client.callTool('analyze_image', { image: png(small) }))).toBe(`image ${sha256(small)}`);
    const result = await client.callTool('analyze_image', { image: png(randomBytes(LIMIT + 1)) });
    expect(result.isError).toBe(true);
    const error = getStructuredError(result);
    expect(error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      category: 'invalid_input',
      details: { size_bytes: LIMIT + 1, max_size_bytes: LIMIT, pointer: '/arguments/image' },
    });
    expect(validError(error).errors).toBe('');
    expect(fixture.runs).toBe(1);
  });

  it('MM-6: an unlisted media type is refused as invalid_input unless the tool accepts unlisted types', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture);
    const gif = { type: 'image', data: Buffer.from('GIF89a').toString('base64'), mimeType: 'image/gif' };
    const refused = getStructuredError(await client.callTool('analyze_image', { image: gif }));
    expect(refused).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      category: 'invalid_input',
      details: { mime_type: 'image/gif', pointer: '/arguments/image' },
    });
    expect(fixture.runs).toBe(0);
    expect(textOf(await client.callTool('store_anything', { file: gif }))).toBe(
      `image ${sha256(Buffer.from('GIF89a'))}`,
    );
  });

  it('MM-9 MM-11: bytes go out of band as a reference when both sides support it, and the tool reads them', async () => {
    const {
      pair: { client },
    } = await pair(line, new Fixture());
    const bytes = randomBytes(500_000);
    const image = await binaryInput(client, bytes, { mimeType: 'image/png' });
    expect(isDataReference(image)).toBe(true);
    expect(image).toMatchObject({ origin_server: 'vision', mime_type: 'image/png', size_bytes: bytes.length });
    expect(textOf(await client.callTool('analyze_image', { image }))).toBe(`reference ${sha256(bytes)}`);
    const tiny = await binaryInput(client, randomBytes(100), { mimeType: 'image/png' });
    expect(tiny).toMatchObject({ type: 'image' });
  });

  it('MM-10: for its own references the server trusts its records, not the size the client wrote', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture);
    const image = await binaryInput(client, randomBytes(LIMIT + 1000), { mimeType: 'image/png' });
    const understated = { ...image, size_bytes: 10 };
    expect(getStructuredError(await client.callTool('analyze_image', { image: understated }))).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { size_bytes: LIMIT + 1000 },
    });
    const forged = { ...image, ref_id: 'ref-forgedforgedforged00' };
    expect(getStructuredError(await client.callTool('analyze_image', { image: forged }))).toMatchObject({
      code: 'REFERENCE_NOT_FOUND',
      category: 'invalid_input',
      suggestion: 'Upload the data again and pass the new reference.',
    });
    expect(fixture.runs).toBe(0);
  });

  it('MM-12: a caller that cannot upload here is told to send the data inline, not to upload again', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture, { client: false });
    const image = {
      ref_id: 'ref-forgedforgedforged00',
      origin_server: 'vision',
      mime_type: 'image/png',
      size_bytes: 10,
    };
    const error = getStructuredError(await client.callTool('analyze_image', { image }));
    expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND' });
    expect(error?.suggestion).toBe('Send the data inline (as image, audio or embedded blob content) instead.');
    expect(fixture.runs).toBe(0);
  });

  it("MM-10: another server's reference on a server that imports nothing is refused with the data-references error naming the argument", async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture);
    const foreign = {
      ref_id: 'ref-elsewhere',
      origin_server: 'elsewhere',
      mime_type: 'image/png',
      size_bytes: 10,
      access_url: 'https://files.example.com/ref-elsewhere',
    };
    for (const image of [foreign, { ref_id: 'ref-elsewhere', origin_server: 'elsewhere', mime_type: 'image/png' }]) {
      const result = await client.callTool('analyze_image', { image });
      expect(result.isError).toBe(true);
      const error = getStructuredError(result);
      expect(error).toMatchObject({
        code: 'ORIGIN_NOT_ALLOWED',
        category: 'permanent',
        details: { pointer: '/arguments/image', ref_id: 'ref-elsewhere' },
      });
      expect(validError(error).errors).toBe('');
    }
  });

  it('MM-7: a malformed reference is refused as invalid_input naming the field, and the tool never runs', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture);
    const image = { ref_id: `ref-${'A'.repeat(300)}`, origin_server: 'vision', mime_type: 'image/png' };
    const error = getStructuredError(await client.callTool('analyze_image', { image }));
    expect(error).toMatchObject({
      code: 'INVALID_INPUT',
      category: 'invalid_input',
      details: { pointer: '/arguments/image/ref_id', field: 'ref_id' },
    });
    expect(validError(error).errors).toBe('');
    expect(fixture.runs).toBe(0);
  });

  it('MM-11: a server without out-of-band transport gets inline base64', async () => {
    const {
      pair: { client },
    } = await pair(line, new Fixture(), { outOfBand: false });
    expect(getMultimodalSettings(client)?.binary_transport).toEqual(['base64']);
    const bytes = randomBytes(50_000);
    const image = await binaryInput(client, bytes, { mimeType: 'image/png' });
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(textOf(await client.callTool('analyze_image', { image }))).toBe(`image ${sha256(bytes)}`);
  });
});

describe.each(TEST_LINES)('multimodal for a client without the extension on %s', (line) => {
  it('MM-8 MM-11: the client sends inline base64 and the server still enforces the limits', async () => {
    const fixture = new Fixture();
    const {
      pair: { client },
    } = await pair(line, fixture, { client: false });
    expect(getMultimodalSettings(client)).toBeUndefined();
    const bytes = randomBytes(5000);
    const image = await binaryInput(client, bytes, { mimeType: 'image/png' });
    expect(image).toMatchObject({ type: 'image' });
    expect(textOf(await client.callTool('analyze_image', { image }))).toBe(`image ${sha256(bytes)}`);
    const result = await client.callTool('analyze_image', { image: png(randomBytes(LIMIT + 1)) });
    expect(getStructuredError(result)?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(fixture.runs).toBe(1);
  });
});
