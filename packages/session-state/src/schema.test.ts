import { seedValidators } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { sessionStateClient } from './client.js';
import { SCHEMA_BASE, sessionStateJsonSchema } from './schema.js';
import { sessionStateServer } from './server.js';

const keys = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes' }];

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(sessionStateJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('SS-1 SS-4: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(sessionStateJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    expect(check('server-settings', sessionStateServer({ keys, serverName: 'files' }).settings)).toBe(true);
    expect(check('client-settings', sessionStateClient().settings)).toBe(true);
    expect(check('request-meta', { session_state: 'abc' })).toBe(true);
    expect(check('request-meta', { session_state: 'a b' })).toBe(false);
    expect(check('request-meta', {})).toBe(false);
    expect(check('result-meta', { state_changed: true })).toBe(true);
    expect(
      check('result-meta', { session_state: 'abc', expires_at: '2030-01-01T00:00:00Z', state_changed: true }),
    ).toBe(true);
    expect(check('result-meta', { session_state: 'abc', expires_at: 'tomorrow', state_changed: true })).toBe(false);
  });
});

describe('the seed schema session-state.json (SS-18)', () => {
  const seeds = seedValidators();

  it('SS-18: a tools/call carrying the request entry is a StateUpdateRequest', () => {
    const check = seeds.check('session-state', 'StateUpdateRequest');
    const outcome = check({
      tool: 'edit_document',
      parameters: { text: 'hi' },
      session_state: 'eyJmaWxlX2lkIjoiZG9jLTQyIn0',
    });
    expect(outcome.errors).toBe('');
    expect(seeds.check('session-state')({ tool: 'edit_document', session_state: 'abc' }).valid).toBe(true);
  });

  it('SS-18: a result carrying the result entry is a StateUpdateResponse', () => {
    const check = seeds.check('session-state', 'StateUpdateResponse');
    const result = { content: [{ type: 'text', text: 'ok' }] };
    expect(
      check({ result, session_state: 'abc', expires_at: '2030-01-01T00:00:00.000Z', state_changed: true }).errors,
    ).toBe('');
    expect(check({ result, state_changed: true }).errors).toBe('');
    expect(check({ result, session_state: 42 }).valid).toBe(false);
  });
});
