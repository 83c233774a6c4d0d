import { ERROR_CATEGORIES } from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEED_SCHEMAS, seedValidators } from '@ext/core/testing';

const seedErrorSchema = SEED_SCHEMAS.error;
import {
  ERRORS_ID,
  isStructuredError,
  StructuredErrorSchema,
  structuredErrorJsonSchema,
  structuredErrorViolation,
} from './schema.js';

const seed = seedValidators().check('error');

describe('StructuredErrorSchema', () => {
  it('identifier is io.github.mcp-ext/errors (ERR-1)', () => {
    expect(ERRORS_ID).toBe('io.github.mcp-ext/errors');
  });

  it('has the seed schema’s fields, required fields and categories (ERR-3, ERR-5)', () => {
    expect(Object.keys(StructuredErrorSchema.properties).sort()).toEqual(
      Object.keys(seedErrorSchema.properties).sort(),
    );
    expect([...StructuredErrorSchema.required].sort()).toEqual([...seedErrorSchema.required].sort());
    expect(seedErrorSchema.properties.category.enum).toEqual([...ERROR_CATEGORIES]);
    expect(StructuredErrorSchema.properties.category.enum).toEqual([...ERROR_CATEGORIES]);
    for (const [name, property] of Object.entries(seedErrorSchema.properties)) {
      const ours = (StructuredErrorSchema.properties as unknown as Record<string, Record<string, unknown>>)[name];
      if ('type' in property) expect(ours?.type).toBe(property.type);
      if ('format' in property) expect(ours?.format).toBe(property.format);
      if ('minimum' in property) expect(ours?.minimum).toBe(property.minimum);
    }
  });

  it('accepts exactly what the seed schema accepts', () => {
    const field = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.anything());
    const candidate = fc.record(
      {
        code: field(fc.string()),
        message: field(fc.string()),
        category: field(fc.constantFrom(...ERROR_CATEGORIES, 'fatal')),
        retry_after_seconds: field(fc.oneof(fc.integer({ min: -5, max: 1e6 }), fc.double())),
        user_actionable: field(fc.boolean()),
        suggestion: field(fc.string()),
        details: field(fc.dictionary(fc.string(), fc.jsonValue())),
        documentation_url: field(fc.constantFrom('https://docs.example.com/e#X', 'urn:isbn:123', 'not a url', '')),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(candidate, (value) => {
        expect(isStructuredError(value)).toBe(seed(value).valid);
      }),
      { numRuns: 1000 },
    );
  });

  it('names the first violation with a JSON pointer', () => {
    expect(structuredErrorViolation({ code: 'X', message: 'm', category: 'fatal' })?.pointer).toBe('/category');
    expect(structuredErrorViolation('x')).toEqual({ pointer: '', message: 'must be an object' });
    expect(structuredErrorViolation({ code: 'X', message: 'm', category: 'permanent' })).toBeUndefined();
  });

  it('the schema.json shipped in dist is the generated JSON Schema (refresh with vitest -u)', async () => {
    expect(structuredErrorJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    await expect(`${JSON.stringify(structuredErrorJsonSchema, null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });
});
