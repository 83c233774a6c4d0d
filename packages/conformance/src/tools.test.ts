import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidArguments, sampleArguments, variedArguments } from './tools.js';
import type { ListedTool } from './types.js';

const property = fc.oneof(
  fc.record({ type: fc.constant('string'), minLength: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }) }),
  fc.record({
    type: fc.constantFrom('integer', 'number'),
    minimum: fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('boolean') }),
  fc.record({ enum: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }) }),
  fc.record({ type: fc.constant('array') }),
);
const toolSchema = fc
  .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), property, { maxKeys: 5 })
  .chain((properties) =>
    fc.subarray(Object.keys(properties)).map((required) => ({ type: 'object', properties, required })),
  );

describe('sampleArguments', () => {
  it('builds arguments that validate against the schema they came from', () => {
    const ajv = new Ajv2020({ strict: false });
    fc.assert(
      fc.property(toolSchema, (inputSchema) => {
        const args = sampleArguments({ name: 't', inputSchema });
        expect(args).toBeDefined();
        expect(ajv.validate(inputSchema, args)).toBe(true);
      }),
    );
  });

  it('gives up on what it cannot build rather than guessing', () => {
    const tool: ListedTool = {
      name: 't',
      inputSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
    };
    expect(sampleArguments(tool)).toBeUndefined();
  });
});

describe('invalidArguments', () => {
  it('builds arguments that the schema rejects, naming the broken field', () => {
    const ajv = new Ajv2020({ strict: false });
    fc.assert(
      fc.property(toolSchema, (inputSchema) => {
        const broken = invalidArguments({ name: 't', inputSchema });
        const typed = Object.values(inputSchema.properties as Record<string, Record<string, unknown>>).some(
          (schema) => typeof schema.type === 'string',
        );
        if (!typed) {
          expect(broken).toBeUndefined();
          return;
        }
        expect(broken).toBeDefined();
        expect(ajv.validate(inputSchema, broken?.args)).toBe(false);
        expect(Object.keys(inputSchema.properties as object)).toContain(broken?.field);
      }),
    );
  });
});

describe('variedArguments', () => {
  it('changes one property to another value the schema still accepts, or says it cannot', () => {
    const ajv = new Ajv2020({ strict: false });
    fc.assert(
      fc.property(toolSchema, (inputSchema) => {
        const args = sampleArguments({ name: 't', inputSchema }) ?? {};
        const varied = variedArguments({ name: 't', inputSchema }, args);
        const variable = Object.values(inputSchema.properties as Record<string, Record<string, unknown>>).some(
          (schema) => ['string', 'integer', 'number', 'boolean'].includes(String(schema.type)),
        );
        if (!variable) {
          expect(varied).toBeUndefined();
          return;
        }
        if (varied === undefined) throw new Error('a string, number or boolean property was not varied');
        expect(ajv.validate(inputSchema, varied.args)).toBe(true);
        expect(varied.args[varied.field]).not.toEqual(args[varied.field]);
      }),
    );
  });

  it('leaves arrays and objects alone: an array of entities cannot be varied without knowing its items', () => {
    const tool: ListedTool = {
      name: 'create_entities',
      inputSchema: { type: 'object', properties: { entities: { type: 'array', items: { type: 'object' } } } },
    };
    expect(variedArguments(tool, { entities: [] })).toBeUndefined();
  });
});
