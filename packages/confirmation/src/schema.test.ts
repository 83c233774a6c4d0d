import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { seedValidators } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { confirmationClient } from './client.js';
import { confirmationServer } from './server.js';
import { CONFIRMATION_ID, confirmationJsonSchema, SCHEMA_BASE } from './schema.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(confirmationJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('CONF-1 CONF-14: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(confirmationJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    expect(check('server-settings', confirmationServer({ grants: {} }).settings)).toBe(true);
    expect(check('client-settings', confirmationClient().settings)).toBe(true);
    const tool = {
      name: 'drop',
      _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Drop {db}?' } },
    };
    expect(check('tool-meta', confirmationServer().toolMeta?.(tool))).toBe(true);
    expect(check('tool-meta', { requires_confirmation: true, risk_level: 'fatal' })).toBe(false);
    expect(check('request-meta', { confirmation_token: 'short' })).toBe(false);
    expect(check('grant-params', { tool: 't', max_calls: 0, duration_seconds: 10 })).toBe(false);
  });

  it('CONF-1: the tool metadata fits the seed manifest ToolDefinition', () => {
    const seed = seedValidators().check('service-manifest', 'ToolDefinition');
    const tool = {
      name: 'drop',
      _meta: { [CONFIRMATION_ID]: { requires_confirmation: true, confirmation_message: 'Drop {db}?' } },
    };
    const meta = confirmationServer().toolMeta?.(tool);
    const outcome = seed({ name: 'drop', description: 'Drops a database', input_schema: { type: 'object' }, ...meta });
    expect(outcome.errors).toBe('');
    expect(outcome.valid).toBe(true);
  });
});
