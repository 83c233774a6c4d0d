import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeServer } from '../pipeline/compose.js';
import { assertIdentityStated, createCallerGate, principalOf, type SdkAuthInfo } from '../http/http-identity.js';
import {
  ANONYMOUS_PRINCIPAL,
  LOCAL_PRINCIPAL,
  MAX_PRINCIPAL_LENGTH,
  isPrincipalName,
  principalFromAuthInfo,
  readIdentifyResult,
  resolveCaller,
  stampIdentity,
  withLocalScopes,
} from './identity.js';
import { silentLogger } from '../telemetry/logger.js';
import type { ServerExtension } from './extension.js';

/** What `run` throws (`undefined` if it returns). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const request = (headers: Record<string, string> = {}): Request =>
  new Request('http://mcp.test/mcp', { method: 'POST', headers });

function perCaller(name = '@test/keeper'): ServerExtension {
  return {
    side: 'server',
    name,
    ids: ['io.github.mcp-ext/keeper'],
    settings: { version: '1.0' },
    keepsCallerState: true,
  };
}

describe('principal from OAuth auth info (IDENT-1)', () => {
  it('names the caller by issuer and subject, else subject, else client id', () => {
    expect(principalFromAuthInfo({ clientId: 'app', extra: { iss: 'https://auth.example', sub: 'alice' } })).toBe(
      'oauth:https://auth.example#alice',
    );
    expect(principalFromAuthInfo({ clientId: 'app', extra: { sub: 'alice' } })).toBe('sub:alice');
    expect(principalFromAuthInfo({ clientId: 'app' })).toBe('client:app');
    expect(principalFromAuthInfo({ clientId: '' })).toBeUndefined();
    expect(principalFromAuthInfo({ extra: { sub: 42 } })).toBeUndefined();
  });

  it('never lets two distinct (issuer, subject) pairs share a principal', () => {
    const part = fc.string({ minLength: 1, maxLength: 20 }).filter(isPrincipalName);
    fc.assert(
      fc.property(part, part, part, part, (iss1, sub1, iss2, sub2) => {
        fc.pre(iss1 !== iss2 || sub1 !== sub2);
        const one = principalFromAuthInfo({ extra: { iss: iss1, sub: sub1 } });
        const two = principalFromAuthInfo({ extra: { iss: iss2, sub: sub2 } });
        expect(one).not.toBe(two);
      }),
    );
  });

  it('keeps the namespaces of issuers, bare subjects, clients and identify hooks apart', () => {
    const name = fc.string({ minLength: 1, maxLength: 20 }).filter(isPrincipalName);
    fc.assert(
      fc.property(name, (value) => {
        const all = [
          principalFromAuthInfo({ extra: { iss: 'sub:x', sub: value } }),
          principalFromAuthInfo({ extra: { sub: `x#${value}` } }),
          principalFromAuthInfo({ extra: { sub: value } }),
          principalFromAuthInfo({ clientId: value }),
          readIdentifyResult(value, 'test')?.principal,
          LOCAL_PRINCIPAL,
          ANONYMOUS_PRINCIPAL,
        ];
        expect(new Set(all).size).toBe(all.length);
      }),
    );
  });
});

describe('resolving the caller (IDENT-2, IDENT-3)', () => {
  it('is local off HTTP, unknown over HTTP without authentication', () => {
    expect(resolveCaller({ rawAuthInfo: undefined, authInfo: undefined, overHttp: false })).toEqual({
      principal: LOCAL_PRINCIPAL,
      source: 'local',
    });
    expect(resolveCaller({ rawAuthInfo: undefined, authInfo: undefined, overHttp: true })).toBeUndefined();
  });

  it('off HTTP, the local caller holds the scopes the server grants it; over HTTP, or with auth info carried, it does not', () => {
    expect(withLocalScopes(undefined, false, ['files:write'])).toEqual({ scopes: ['files:write'] });
    expect(withLocalScopes(undefined, false, undefined)).toBeUndefined();
    expect(withLocalScopes(undefined, false, [])).toBeUndefined();
    expect(withLocalScopes(undefined, true, ['files:write'])).toBeUndefined();
    const carried = { clientId: 'app', scopes: ['read'] };
    expect(withLocalScopes(carried, false, ['files:write'])).toBe(carried);
  });

  it('prefers the identity the HTTP handler stamped, which a token claim cannot forge', () => {
    const raw = stampIdentity({ token: '', clientId: '', scopes: [] }, { principal: 'id:alice', source: 'custom' });
    expect(resolveCaller({ rawAuthInfo: { ...raw }, authInfo: undefined, overHttp: true })).toEqual({
      principal: 'id:alice',
      source: 'custom',
    });
    // What a verifier copies from a JWT lands in `extra`, as strings: never a stamp.
    const forged = {
      token: 't',
      clientId: 'app',
      scopes: [],
      extra: { 'io.github.mcp-ext/caller-identity': { principal: 'id:alice', source: 'custom' } },
    };
    expect(
      resolveCaller({ rawAuthInfo: forged, authInfo: { clientId: 'app', extra: forged.extra }, overHttp: true }),
    ).toEqual({ principal: 'client:app', source: 'oauth' });
  });
});

describe('identify results (IDENT-4)', () => {
  it('accepts a name or { principal, scopes } and refuses anything else, naming the hook', () => {
    expect(readIdentifyResult(undefined, 'h')).toBeUndefined();
    expect(readIdentifyResult('alice', 'h')).toEqual({ principal: 'id:alice', scopes: [] });
    expect(readIdentifyResult({ principal: 'bob', scopes: ['a'] }, 'h')).toEqual({
      principal: 'id:bob',
      scopes: ['a'],
    });
    for (const bad of [
      '',
      'a\nb',
      'x'.repeat(MAX_PRINCIPAL_LENGTH + 1),
      42,
      null,
      { principal: 'ok', scopes: 'a' },
      { name: 'alice' },
    ]) {
      const error = thrown(() => readIdentifyResult(bad, 'my hook'));
      expect(error).toMatchObject({ code: 'INVALID_PRINCIPAL' });
      expect(String(error)).toContain('my hook');
    }
  });
});

describe('the HTTP caller gate (IDENT-6)', () => {
  const verified: SdkAuthInfo = {
    token: 't',
    clientId: 'app',
    scopes: ['read'],
    extra: { iss: 'https://auth.example', sub: 'alice' },
  };

  it('takes auth info handed in first, then identify, then authenticate, then the anonymous choice', async () => {
    const gate = createCallerGate(
      {
        identify: (req) =>
          req.headers.get('x-api-key') === 'k1' ? { principal: 'robot', scopes: ['write'] } : undefined,
        authenticate: (req) =>
          req.headers.get('authorization') === 'Bearer good' ? verified : new Response(null, { status: 401 }),
      },
      'test',
    );
    expect(await gate(request({ 'x-api-key': 'k1' }), verified)).toBe(verified);
    const robot = await gate(request({ 'x-api-key': 'k1' }), undefined);
    expect(principalOf(robot as SdkAuthInfo)).toBe('id:robot');
    expect((robot as SdkAuthInfo).scopes).toEqual(['write']);
    expect(principalOf((await gate(request({ authorization: 'Bearer good' }), undefined)) as SdkAuthInfo)).toBe(
      'oauth:https://auth.example#alice',
    );
    expect(await gate(request(), undefined)).toBeInstanceOf(Response);
  });

  it("refuses an unidentified request with 401 unless the author chose 'shared'", async () => {
    const refused = await createCallerGate({ anonymous: 'refuse' }, 'test')(request(), undefined);
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(401);
    const shared = await createCallerGate({ anonymous: 'shared' }, 'test')(request(), undefined);
    expect(principalOf(shared as SdkAuthInfo)).toBe(ANONYMOUS_PRINCIPAL);
    expect(await createCallerGate({}, 'test')(request(), undefined)).toBeUndefined();
  });

  it('fails the request, not open, when identify answers nonsense', async () => {
    const gate = createCallerGate({ identify: () => ({ principal: '' }) }, 'createHttpHandler');
    await expect(gate(request(), undefined)).rejects.toMatchObject({ code: 'INVALID_PRINCIPAL' });
  });
});

describe('the start-up check (IDENT-7)', () => {
  it('refuses per-caller extensions on HTTP with no stated way to identify callers, naming the options', () => {
    const composed = composeServer([perCaller()], { logger: silentLogger });
    const error = thrown(() => {
      assertIdentityStated(composed, {}, 'createHttpHandler');
    });
    expect(error).toMatchObject({ code: 'CALLERS_NOT_IDENTIFIED' });
    expect(String(error)).toMatch(/@test\/keeper.*authenticate.*identify.*anonymous: 'shared'/s);
    expect(
      thrown(() => {
        assertIdentityStated(composed, { anonymous: 'shared' }, 'createHttpHandler');
      }),
    ).toBeUndefined();
    expect(
      thrown(() => {
        assertIdentityStated(composeServer([], { logger: silentLogger }), {}, 'createHttpHandler');
      }),
    ).toBeUndefined();
  });
});
