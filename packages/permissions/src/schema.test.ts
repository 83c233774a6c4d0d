import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { seedValidators } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { permissionsClient } from './client.js';
import { permissionsJsonSchema, SCHEMA_BASE } from './schema.js';
import { permissionsServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(permissionsJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  ajv.addSchema(permissionsJsonSchema());
  const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
  const seed = seedValidators();

  it('PERM-1 PERM-2: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const server = permissionsServer({
      scopes: [{ name: 'a:read', description: 'read a', tools: ['t'], autoGrant: true }],
      elevationUrl: 'https://x.example/grant',
    });
    expect(check('server-settings', server.settings)).toBe(true);
    expect(check('client-settings', permissionsClient().settings)).toBe(true);
    expect(check('tool-meta', server.toolMeta?.({ name: 't' }))).toBe(true);
    expect(check('request-meta', { session_token: '' })).toBe(false);
  });

  it('PERM-4 PERM-6: each shape with a seed counterpart agrees with the seed schema on sample payloads', () => {
    const samples: [string, string, unknown][] = [
      ['check-request', 'PermissionCheckRequest', { tool: 't', scopes_held: ['a'], parameters: { id: 1 } }],
      [
        'check-response',
        'PermissionCheckResponse',
        { allowed: false, missing_scopes: ['a'], elevation_url: 'https://x.example/g', reason: 'r' },
      ],
      [
        'negotiate-request',
        'ScopeNegotiationRequest',
        { requested_scopes: ['a'], justification: 'j', ttl_seconds: 60 },
      ],
      [
        'session-token',
        'SessionToken',
        { token: 't', scopes: ['a'], expires_at: '2026-01-01T00:00:00.000Z', inactivity_timeout_seconds: 60 },
      ],
      [
        'negotiate-response',
        'ScopeNegotiationResponse',
        {
          granted_scopes: ['a'],
          denied_scopes: [{ scope: 'b', reason: 'no' }],
          session: { token: 't', scopes: ['a'], expires_at: '2026-01-01T00:00:00Z' },
        },
      ],
      ['check-response', 'PermissionCheckResponse', { allowed: 'yes' }],
      ['session-token', 'SessionToken', { token: 't', scopes: ['a'], expires_at: 'soon' }],
    ];
    for (const [ours, def, value] of samples) {
      expect(check(ours, value), `${ours} ${JSON.stringify(value)}`).toBe(seed.check('permissions', def)(value).valid);
    }
  });
});
