import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { multimodalClient } from './client.js';
import { MULTIMODAL_ID, multimodalJsonSchema, SCHEMA_BASE } from './schema.js';
import { multimodalServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(multimodalJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('MM-1 MM-2: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(multimodalJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    const server = multimodalServer({ mimeTypes: ['image/*'], maxInputSizeBytes: 1000 });
    expect(server.settings).toEqual({
      version: '1.0',
      binary_transport: ['base64'],
      mimeTypes: ['image/*'],
      max_input_size_bytes: 1000,
    });
    expect(check('server-settings', server.settings)).toBe(true);
    expect(multimodalClient({ mimeTypes: ['image/png'] }).settings).toEqual({
      version: '1.0',
      binary_transport: ['base64', 'data-reference'],
      mimeTypes: ['image/png'],
    });
    expect(check('client-settings', multimodalClient().settings)).toBe(true);
    const meta = server.toolMeta?.({
      name: 't',
      _meta: {
        [MULTIMODAL_ID]: { input_types: ['image/png'], output_types: ['application/json'], max_input_size_bytes: 10 },
      },
    });
    expect(check('tool-meta', meta)).toBe(true);
    expect(check('tool-declaration', { input_types: ['png'] })).toBe(false);
    expect(server.toolMeta?.({ name: 'plain' })).toBeUndefined();
  });

  it('MM-9: out of band requires the data-references server half', () => {
    expect(multimodalServer({ outOfBand: true })).toMatchObject({
      requires: ['@ext/data-references'],
      settings: { binary_transport: ['base64', 'data-reference'] },
    });
    expect(() => multimodalServer({ mimeTypes: ['png'] })).toThrow(/mimeTypes\[0\] must be a media type/);
    expect(() => multimodalServer({ maxInputSizeBytes: -5 })).toThrow(
      /maxInputSizeBytes must be a non-negative integer/,
    );
  });
});
