import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { contentNegotiationClient } from './client.js';
import { contentNegotiationJsonSchema, CONTENT_NEGOTIATION_ID, SCHEMA_BASE } from './schema.js';
import { contentNegotiationServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('identifier is io.github.mcp-ext/content-negotiation (CN-1)', () => {
    expect(CONTENT_NEGOTIATION_ID).toBe('io.github.mcp-ext/content-negotiation');
  });

  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(contentNegotiationJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('compiles under JSON Schema 2020-12 and accepts what both halves send (CN-1, CN-9, CN-14)', () => {
    const ajv = new Ajv2020({ strict: true });
    ajv.addSchema(contentNegotiationJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    expect(check('server-settings', contentNegotiationServer().settings)).toBe(true);
    expect(check('client-settings', contentNegotiationClient({ features: ['agent', 'format=json'] }).settings)).toBe(
      true,
    );
    expect(check('client-settings', { version: '1.0', features: 'agent' })).toBe(false);
    expect(check('client-settings', {})).toBe(true);
    expect(check('request-meta', { features: ['human'] })).toBe(true);
    expect(check('request-meta', {})).toBe(false);
    expect(check('result-meta', { features: ['format=json', 'verbosity=standard'] })).toBe(true);
    expect(check('result-meta', { features: [''] })).toBe(false);
  });
});
