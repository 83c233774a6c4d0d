import { ConfigurationError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { permissionsClient } from './client.js';
import { PERMISSIONS_ID } from './schema.js';
import { permissionsServer } from './server.js';

describe('permissionsServer options', () => {
  it('PERM-9: elevationUrl must be https', () => {
    expect(() => permissionsServer({ elevationUrl: 'http://auth.example.com' })).toThrow(
      /elevationUrl must be an https URL/,
    );
    expect(() => permissionsServer({ elevationUrl: 'not a url' })).toThrow(ConfigurationError);
    expect(permissionsServer({ elevationUrl: 'https://auth.example.com/grant' }).settings.elevation_url).toBe(
      'https://auth.example.com/grant',
    );
  });

  it('validates numeric and function options, naming them', () => {
    expect(() => permissionsServer({ sessionTtlSeconds: 0 })).toThrow(/sessionTtlSeconds/);
    expect(() => permissionsServer({ maxSessionSeconds: 1.5 })).toThrow(/maxSessionSeconds/);
    expect(() => permissionsServer({ keyPrefix: '' })).toThrow(/keyPrefix/);
    expect(() => permissionsClient({ now: 5 as unknown as () => number })).toThrow(/now/);
  });

  it('PERM-1: advertises its scopes and session timeouts', () => {
    const half = permissionsServer({
      scopes: [{ name: 'a:read', description: 'read a', tools: ['t'] }],
      sessionTtlSeconds: 60,
    });
    expect(half.settings).toEqual({
      version: '1.0',
      scopes: [{ name: 'a:read', description: 'read a', tools: ['t'] }],
      session_ttl_seconds: 60,
      max_session_seconds: 3600,
    });
    expect(half.stage).toBe('permissions');
  });

  it('PERM-2: tool metadata is normalized, and an unknown scope fails at registration naming tool and scope', () => {
    const half = permissionsServer({ scopes: [{ name: 'a:read', description: 'read a', tools: ['t'] }] });
    expect(half.toolMeta?.({ name: 't' })).toEqual({ required_scopes: ['a:read'] });
    expect(() => half.toolMeta?.({ name: 'x', _meta: { [PERMISSIONS_ID]: { required_scopes: ['a:write'] } } })).toThrow(
      /tool "x".*"a:write"/,
    );
  });
});
