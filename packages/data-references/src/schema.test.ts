import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { MemoryStore } from '@ext/core';
import { seedValidators } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { dataReferencesClient } from './client.js';
import { dataReferencesJsonSchema, SCHEMA_BASE } from './schema.js';
import { createReferenceOrigin, dataReferencesServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(dataReferencesJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  ajv.addSchema(dataReferencesJsonSchema());
  const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
  const seed = seedValidators();

  it('DREF-1: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const origin = createReferenceOrigin({
      secret: 'x'.repeat(32),
      store: new MemoryStore(),
      serverName: 'a',
      baseUrl: 'https://a.example/refs',
      uploads: true,
    });
    const server = dataReferencesServer({ origin, import: { allowedOrigins: ['https://b.example'] } });
    expect(server.settings).toEqual({
      version: '1.0',
      origin_server: 'a',
      import: { max_size_bytes: 1024 ** 3 },
      upload: { max_size_bytes: 128 * 1024 ** 2, ttl_seconds: 300 },
    });
    expect(check('server-settings', server.settings)).toBe(true);
    expect(check('client-settings', dataReferencesClient().settings)).toBe(true);
    expect(check('upload-request', { mime_type: 'image/png\nx: y' })).toBe(false);
    expect(
      check('upload-ticket', {
        upload_url: 'https://a.example/refs/uploads/u?expires=1&sig=s',
        method: 'PUT',
        expires_at: '2030-01-01T00:00:00Z',
        max_size_bytes: 5,
      }),
    ).toBe(true);
  });

  it('DREF-2 DREF-11: each shape with a seed counterpart agrees with the seed schema on sample payloads', () => {
    const reference = {
      ref_id: 'ref-1',
      origin_server: 'a',
      mime_type: 'text/csv',
      size_bytes: 3,
      expires_at: '2030-01-01T00:00:00.000Z',
      access_url: 'https://a.example/refs/ref-1?expires=1&sig=s',
      checksum: { algorithm: 'sha256', value: 'ab'.repeat(32) },
    };
    const error = { code: 'CHECKSUM_MISMATCH', message: 'm', category: 'permanent', details: { expected: 'x' } };
    const samples: [string, string, unknown][] = [
      ['data-reference', 'DataReference', reference],
      ['data-reference', 'DataReference', { ref_id: 'r', origin_server: 'a', mime_type: 'x/y' }],
      ['data-reference', 'DataReference', { ...reference, size_bytes: -1 }],
      ['data-reference', 'DataReference', { ...reference, expires_at: 'soon' }],
      ['data-reference', 'DataReference', { ...reference, checksum: { algorithm: 'crc32', value: 'ab' } }],
      ['import-request', 'ImportFromRefRequest', { ...reference, target_format: 'raw' }],
      ['import-request', 'ImportFromRefRequest', { ref_id: 'r' }],
      [
        'import-response',
        'ImportFromRefResponse',
        { status: 'imported', imported_resource_id: 'ref-2', size_bytes: 3, reference },
      ],
      ['import-response', 'ImportFromRefResponse', { status: 'failed', error }],
      [
        'import-response',
        'ImportFromRefResponse',
        { status: 'failed', error: { code: 'X', message: 'm', category: 'fatal' } },
      ],
      ['import-response', 'ImportFromRefResponse', { status: 'done' }],
    ];
    for (const [ours, def, value] of samples) {
      expect(check(ours, value), `${ours} ${JSON.stringify(value)}`).toBe(
        seed.check('data-references', def)(value).valid,
      );
    }
  });
});
