import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { idempotencyServer } from './server.js';
import { idempotencyClient } from './client.js';
import { idempotencyJsonSchema, SCHEMA_BASE } from './schema.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(idempotencyJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('IDEM-1 IDEM-14: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(idempotencyJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    expect(check('server-settings', idempotencyServer().settings)).toBe(true);
    expect(check('client-settings', idempotencyClient().settings)).toBe(true);
    expect(check('tool-meta', idempotencyServer().toolMeta?.({ name: 't' }))).toBe(true);
    expect(check('request-meta', { idempotency_key: 'k', idempotency_ttl_seconds: 0 })).toBe(false);
    expect(check('result-meta', { idempotency_key: 'k', was_replay: true, original_timestamp: 'yesterday' })).toBe(
      false,
    );
  });
});
