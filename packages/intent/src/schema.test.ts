import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { intentClient } from './client.js';
import { intentJsonSchema, SCHEMA_BASE } from './schema.js';
import { intentServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(intentJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('INT-1: accepts what both halves advertise and refuses malformed entries', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(intentJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    expect(check('server-settings', intentServer().settings)).toBe(true);
    expect(check('client-settings', intentClient().settings)).toBe(true);
    expect(check('request-meta', { intent: '' })).toBe(false);
    expect(check('result-meta', { suggestion: { recommended_tool: 't', reason: 'r' }, executed: true })).toBe(true);
  });
});
