import { seedValidators } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { provenanceClient } from './client.js';
import { CONFIDENCE_LEVELS, provenanceJsonSchema, SCHEMA_BASE } from './schema.js';
import { provenanceServer } from './server.js';

const ajv = new Ajv2020({ strict: true });
addFormats.default(ajv);
ajv.addSchema(provenanceJsonSchema());
const ours = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
const seedProvenance = seedValidators().check('provenance', 'Provenance');
const seedWrapper = seedValidators().check('provenance', 'ProvenanceWrapper');

const date = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const provenance = fc.record(
  {
    source: fc.string({ minLength: 1, maxLength: 40 }),
    location: fc.record(
      {
        page: fc.integer({ min: 1, max: 999 }),
        cell: fc.string({ maxLength: 5 }),
        json_path: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: [] },
    ),
    retrieved_at: date,
    version: fc.string({ maxLength: 12 }),
    confidence: fc.constantFrom(...CONFIDENCE_LEVELS),
    transformation: fc.string({ maxLength: 40 }),
  },
  { requiredKeys: ['source'] },
);

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(provenanceJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('PROV-1: accepts what both halves advertise', () => {
    expect(ours('server-settings', provenanceServer().settings)).toBe(true);
    expect(ours('client-settings', provenanceClient().settings)).toBe(true);
  });

  it('PROV-3: every Provenance and result entry ours accepts, the seed schema accepts too', () => {
    fc.assert(
      fc.property(fc.array(provenance, { minLength: 1, maxLength: 4 }), fc.boolean(), (records, single) => {
        const entry = { provenance: single ? records[0] : records };
        expect(ours('result-meta', entry)).toBe(true);
        for (const record of records) expect(seedProvenance(record)).toEqual({ valid: true, errors: '' });
        expect(seedWrapper({ result: {}, ...entry }).valid).toBe(true);
      }),
    );
  });

  it('PROV-3: refuses what the seed refuses', () => {
    for (const bad of [
      {},
      { source: 'x', confidence: 'sure' },
      { source: 'x', location: { page: 'three' } },
      { source: 'x', retrieved_at: 'yesterday' },
    ]) {
      expect(seedProvenance(bad).valid).toBe(false);
      expect(ours('provenance', bad)).toBe(false);
    }
    expect(ours('result-meta', { provenance: [] })).toBe(false);
    expect(ours('result-meta', { provenance: { source: 'x' }, sha256: 'not-hex' })).toBe(false);
  });
});
