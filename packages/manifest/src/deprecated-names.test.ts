import { composeServer } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getServiceManifest, manifestServer } from './server.js';

// The snake_case spellings of 0.1 keep working until the next major and warn once per process (VERSIONING.md section 4).

afterEach(() => {
  vi.restoreAllMocks();
});

function manifestOf(half: ReturnType<typeof manifestServer>) {
  const composed = composeServer([half], { logger: silentLogger });
  return getServiceManifest({ composed, identity: { name: 'shop', version: '1.0.0' } }).manifest;
}

describe('manifestServer options', () => {
  it('MAN-9: camelCase options appear in the manifest in the seed spelling', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const manifest = manifestOf(
      manifestServer({
        auth: { methods: ['bearer_token'], sessionTtlSeconds: 900 },
        rateLimits: { requestsPerMinute: 60, requestsPerDay: 1000, resetsAt: '2026-03-15T00:00:00Z' },
        recommendations: [
          { capability: 'invoicing', serverName: 'billing', registryUrl: 'https://r.example/b', authFlow: 'oauth' },
        ],
      }),
    );
    expect(manifest.auth).toEqual({ methods: ['bearer_token'], session_ttl_seconds: 900 });
    expect(manifest.rate_limits).toEqual({
      requests_per_minute: 60,
      requests_per_day: 1000,
      resets_at: '2026-03-15T00:00:00Z',
    });
    expect(manifest.recommendations).toEqual([
      { capability: 'invoicing', server_name: 'billing', registry_url: 'https://r.example/b', auth_flow: 'oauth' },
    ]);
    expect(emitted).not.toHaveBeenCalled();
  });

  it('MAN-9: the 0.1 snake_case spellings are still taken, warning once each', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const options = {
      auth: { session_ttl_seconds: 900 },
      rateLimits: { requests_per_minute: 60, requests_per_day: 1000, resets_at: '2026-03-15T00:00:00Z' },
      recommendations: [
        { capability: 'a', server_name: 'x', registry_url: 'https://r.example/x', match_confidence: 'high' as const },
        { capability: 'b', server_name: 'y', auth_flow: 'oauth' },
      ],
    };
    const manifest = manifestOf(manifestServer(options));
    manifestOf(manifestServer(options));
    expect(manifest.auth).toEqual({ session_ttl_seconds: 900 });
    expect(manifest.rate_limits).toEqual(options.rateLimits);
    expect(manifest.recommendations).toEqual(options.recommendations);
    const names = emitted.mock.calls.map(([message]) => /"(\w+)" is deprecated/.exec(String(message))?.[1]);
    expect(names.sort()).toEqual([
      'auth_flow',
      'match_confidence',
      'registry_url',
      'requests_per_day',
      'requests_per_minute',
      'resets_at',
      'server_name',
      'session_ttl_seconds',
    ]);
  });
});
