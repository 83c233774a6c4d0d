import { seedValidators } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discoveryClient } from './client.js';
import { DEFAULT_SYNONYM_GROUPS, rank, synonymTable } from './rank.js';
import { RegistryIndex } from './registry.js';
import { discoveryJsonSchema, SCHEMA_BASE } from './schema.js';
import { toRecommendation } from './recommend.js';
import { discoveryServer } from './server.js';

const ajv = new Ajv2020({ strict: true });
addFormats.default(ajv);
ajv.addSchema(discoveryJsonSchema());
const ours = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
const seedRecommendation = seedValidators().check('service-manifest', 'ServerRecommendation');

const fixture = JSON.parse(readFileSync(new URL('./fixtures/registry.json', import.meta.url), 'utf8')) as {
  servers: unknown[];
};
const index = new RegistryIndex({ registryUrl: 'https://registry.modelcontextprotocol.io' });
index.add(fixture.servers);
const vocabulary = [...new Set(index.candidates().flatMap((candidate) => candidate.description.split(/\W+/)))].filter(
  (word) => word.length > 2,
);

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(discoveryJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('DISC-1: accepts what both halves advertise', () => {
    expect(ours('server-settings', discoveryServer().settings)).toBe(true);
    expect(ours('client-settings', discoveryClient().settings)).toBe(true);
  });

  it('DISC-3: the request schema refuses what the parser refuses', () => {
    expect(
      ours('recommend-request', { capability_needed: 'design mockups', max_results: 3, min_confidence: 'medium' }),
    ).toBe(true);
    for (const bad of [
      {},
      { capability_needed: '' },
      { capability_needed: '   ' },
      { capability_needed: 'x'.repeat(257) },
      { capability_needed: 'x', max_results: 0 },
    ]) {
      expect(ours('recommend-request', bad)).toBe(false);
    }
  });

  it('DISC-7: every recommendation built from the fixture index is a seed ServerRecommendation and valid against ours', () => {
    const synonyms = synonymTable(DEFAULT_SYNONYM_GROUPS);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 4 }), (picked) => {
        const query = picked.join(' ');
        for (const ranked of rank(query, index.candidates(), { synonyms, limit: 5 })) {
          const recommendation = toRecommendation(query, ranked);
          expect(seedRecommendation(recommendation)).toEqual({ valid: true, errors: '' });
          expect(ours('recommendation', recommendation)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
