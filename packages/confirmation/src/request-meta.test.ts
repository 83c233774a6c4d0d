import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRequestMeta } from './request-meta.js';
import { confirmationJsonSchema, SCHEMA_BASE } from './schema.js';

const TOKEN = 'A'.repeat(43);

describe('the request entry params._meta[ID] (CONF-9a)', () => {
  it('CONF-8 CONF-15: holds a token or a grant id, as the server issued them', () => {
    expect(readRequestMeta({ confirmation_token: TOKEN })).toEqual({ kind: 'token', token: TOKEN });
    expect(readRequestMeta({ grant_id: TOKEN })).toEqual({ kind: 'grant', grantId: TOKEN });
  });

  it('CONF-9a: an empty entry is refused at confirmation_token, never read as "no token"', () => {
    expect(readRequestMeta({})).toMatchObject({ kind: 'invalid', path: '/confirmation_token' });
  });

  it('CONF-9a: a wrong type or shape, an unknown field, or both fields are refused, naming the field', () => {
    for (const token of [42, null, true, '', 'short', `${TOKEN}=`, [TOKEN], { token: TOKEN }]) {
      expect(readRequestMeta({ confirmation_token: token }), JSON.stringify(token)).toMatchObject({
        kind: 'invalid',
        path: '/confirmation_token',
      });
      expect(readRequestMeta({ grant_id: token }), JSON.stringify(token)).toMatchObject({
        kind: 'invalid',
        path: '/grant_id',
      });
    }
    expect(readRequestMeta({ confirmation_tokn: TOKEN })).toMatchObject({
      kind: 'invalid',
      path: '/confirmation_tokn',
    });
    expect(readRequestMeta({ confirmation_token: TOKEN, approved: true })).toMatchObject({
      kind: 'invalid',
      path: '/approved',
    });
    expect(readRequestMeta({ 'a/b~c': 1 })).toMatchObject({ kind: 'invalid', path: '/a~1b~0c' });
    expect(readRequestMeta(JSON.parse(`{"__proto__": {"confirmation_token": "${TOKEN}"}}`))).toMatchObject({
      kind: 'invalid',
      path: '/__proto__',
    });
    expect(readRequestMeta({ confirmation_token: TOKEN, grant_id: TOKEN })).toMatchObject({
      kind: 'invalid',
      path: '/grant_id',
    });
  });

  it('CONF-9a: an entry that is not an object is refused as a whole', () => {
    for (const raw of [null, [], [{ confirmation_token: TOKEN }], TOKEN, 0, false]) {
      expect(readRequestMeta(raw), JSON.stringify(raw)).toMatchObject({ kind: 'invalid', path: '' });
    }
  });

  it('CONF-9a: accepts exactly what the published JSON Schema accepts (property)', () => {
    const ajv = new Ajv2020({ strict: true });
    ajv.addSchema(confirmationJsonSchema());
    const schemaAccepts = (value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/request-meta.json`, value);
    const field = fc.oneof(fc.constantFrom(TOKEN, 'B'.repeat(43), 'short', ''), fc.string(), fc.jsonValue());
    const entry = fc.oneof(
      fc.record({ confirmation_token: field, grant_id: field, extra: fc.jsonValue() }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), field, { maxKeys: 3 }),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(entry, (raw) => {
        expect(readRequestMeta(raw).kind !== 'invalid').toBe(schemaAccepts(raw));
      }),
      { numRuns: 1000 },
    );
  });
});
