import fc from 'fast-check';
import { ConfigurationError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { checkAccessUrl, checkRedirect, originCheck, resolveImportPolicy } from './import-policy.js';
import {
  contentRange,
  essenceOf,
  isMimeType,
  isRefId,
  parseImportRequest,
  parseRange,
  parseUploadRequest,
  referenceResult,
  referencesInResult,
} from './logic.js';
import { DATA_REFERENCES_ID, type DataReference } from './schema.js';
import { checkSignedRequest, secretBytes, sign, signedUrl } from './signing.js';

const KEY = Buffer.alloc(32, 7);
const OLD_KEY = Buffer.alloc(32, 9);

describe('Range parsing (DREF-9)', () => {
  it('DREF-9: single ranges, suffixes, open ends, and what is ignored', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-0', 10)).toEqual({ kind: 'partial', start: 0, end: 0 });
    expect(parseRange('bytes=2-', 10)).toEqual({ kind: 'partial', start: 2, end: 9 });
    expect(parseRange('bytes=2-100', 10)).toEqual({ kind: 'partial', start: 2, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'partial', start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).toEqual({ kind: 'partial', start: 0, end: 9 });
    expect(parseRange('BYTES = 1 - 2', 10)).toEqual({ kind: 'partial', start: 1, end: 2 });
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=5-2', 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,3-4', 10)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-1', 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=-', 10)).toEqual({ kind: 'full' });
    expect(contentRange({ kind: 'partial', start: 2, end: 9 }, 10)).toBe('bytes 2-9/10');
    expect(contentRange({ kind: 'unsatisfiable' }, 10)).toBe('bytes */10');
    expect(contentRange({ kind: 'full' }, 10)).toBeUndefined();
  });

  it('DREF-9: any header and size give a range inside the payload, or full, or 416 (property)', () => {
    const header = fc.oneof(
      fc.string(),
      fc
        .tuple(fc.option(fc.nat({ max: 5000 })), fc.option(fc.nat({ max: 5000 })))
        .map(([a, b]) => `bytes=${a ?? ''}-${b ?? ''}`),
    );
    fc.assert(
      fc.property(header, fc.nat({ max: 4096 }), (value, size) => {
        const decision = parseRange(value, size);
        if (decision.kind === 'partial') {
          expect(decision.start).toBeGreaterThanOrEqual(0);
          expect(decision.start).toBeLessThanOrEqual(decision.end);
          expect(decision.end).toBeLessThan(size);
        }
        if (decision.kind === 'unsatisfiable') {
          const match = /^bytes=(\d*)-(\d*)$/.exec(value);
          expect(match).not.toBeNull();
          const [, first = '', last = ''] = match ?? [];
          expect(size === 0 || (first !== '' && Number(first) >= size) || (first === '' && Number(last) === 0)).toBe(
            true,
          );
        }
      }),
    );
  });
});

describe('signed URLs (DREF-5, DREF-6, DREF-21)', () => {
  const query = (url: string): URLSearchParams => new URL(url).searchParams;
  const url = signedUrl('https://files.example.com/refs/', ['ref-abc'], KEY, 'download', 'ref-abc', 2_000_000_000);

  it('DREF-5: the URL carries expires and a 256-bit base64url HMAC; it verifies until it expires', () => {
    expect(url).toBe(
      `https://files.example.com/refs/ref-abc?expires=2000000000&sig=${sign(KEY, 'download', 'ref-abc', 2_000_000_000)}`,
    );
    expect(Buffer.from(query(url).get('sig') ?? '', 'base64url')).toHaveLength(32);
    expect(checkSignedRequest([KEY], 'download', 'ref-abc', query(url), 1_999_999_999_000)).toEqual({
      ok: true,
      expiresSeconds: 2_000_000_000,
    });
    expect(checkSignedRequest([KEY], 'download', 'ref-abc', query(url), 2_000_000_000_000)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('DREF-6: a changed id, expiry, signature or key is refused as a bad signature', () => {
    const now = 1_000_000_000_000;
    expect(checkSignedRequest([KEY], 'download', 'ref-abd', query(url), now)).toEqual({
      ok: false,
      reason: 'signature',
    });
    const later = query(url);
    later.set('expires', '2000000001');
    expect(checkSignedRequest([KEY], 'download', 'ref-abc', later, now)).toEqual({ ok: false, reason: 'signature' });
    expect(checkSignedRequest([OLD_KEY], 'download', 'ref-abc', query(url), now)).toEqual({
      ok: false,
      reason: 'signature',
    });
    const missing = query(url);
    missing.delete('sig');
    expect(checkSignedRequest([KEY], 'download', 'ref-abc', missing, now)).toEqual({ ok: false, reason: 'signature' });
  });

  it('DREF-6: every one-character change to the signature is refused, the spare bits of the last one included (property)', () => {
    const sig = query(url).get('sig') ?? '';
    const alphabet = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    fc.assert(
      fc.property(fc.nat({ max: sig.length - 1 }), fc.constantFrom(...alphabet), (at, letter) => {
        fc.pre(sig[at] !== letter);
        const changed = query(url);
        changed.set('sig', `${sig.slice(0, at)}${letter}${sig.slice(at + 1)}`);
        expect(checkSignedRequest([KEY], 'download', 'ref-abc', changed, 0)).toEqual({
          ok: false,
          reason: 'signature',
        });
      }),
      { numRuns: 500 },
    );
    const last = sig.length - 1;
    const sameBytes = alphabet.filter(
      (letter) =>
        letter !== sig[last] &&
        Buffer.from(`${sig.slice(0, last)}${letter}`, 'base64url').equals(Buffer.from(sig, 'base64url')),
    );
    expect(sameBytes).toHaveLength(3);
    for (const letter of sameBytes) {
      const changed = query(url);
      changed.set('sig', `${sig.slice(0, last)}${letter}`);
      expect(checkSignedRequest([KEY], 'download', 'ref-abc', changed, 0)).toEqual({ ok: false, reason: 'signature' });
    }
  });

  it('DREF-6: a rotated-out key in the verification list still verifies', () => {
    const old = signedUrl('https://x.example/r', ['ref-1'], OLD_KEY, 'download', 'ref-1', 2_000_000_000);
    expect(checkSignedRequest([KEY, OLD_KEY], 'download', 'ref-1', query(old), 0).ok).toBe(true);
  });

  it('DREF-21: a signature for uploads is not valid for downloads', () => {
    const upload = signedUrl('https://x.example/r', ['uploads', 'up-1'], KEY, 'upload', 'up-1', 2_000_000_000);
    expect(checkSignedRequest([KEY], 'download', 'up-1', query(upload), 0)).toEqual({ ok: false, reason: 'signature' });
    expect(checkSignedRequest([KEY], 'upload', 'up-1', query(upload), 0).ok).toBe(true);
  });

  it('DREF-6: arbitrary query strings never verify and never throw (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (expires, sig, id) => {
        const params = new URLSearchParams({ expires, sig });
        expect(checkSignedRequest([KEY], 'download', id, params, 0).ok).toBe(false);
      }),
    );
  });

  it('DREF-5: a secret shorter than 32 bytes is a configuration error naming the option', () => {
    expect(() => secretBytes('short', 'createReferenceOrigin: secret')).toThrow(ConfigurationError);
    expect(() => secretBytes('short', 'createReferenceOrigin: secret')).toThrow(/secret must be at least 32 bytes/);
    expect(secretBytes('x'.repeat(32), 's')).toHaveLength(32);
  });
});

describe('import policy (DREF-12, DREF-13)', () => {
  const allowed = originCheck(['https://files.example.com', 'http://127.0.0.1:8080/'], 'allowedOrigins');

  it('DREF-12: the allow-list holds exact origins and refuses anything else at configuration time', () => {
    expect(allowed(new URL('https://files.example.com/refs/x?sig=1'))).toBe(true);
    expect(allowed(new URL('http://127.0.0.1:8080/refs/x'))).toBe(true);
    expect(allowed(new URL('http://127.0.0.1:8081/refs/x'))).toBe(false);
    expect(allowed(new URL('http://files.example.com/refs/x'))).toBe(false);
    expect(allowed(new URL('https://evil.files.example.com/'))).toBe(false);
    expect(() => originCheck(['ftp://x.example'], 'allowedOrigins')).toThrow(
      /allowedOrigins: "ftp:\/\/x.example" must be an http or https URL origin/,
    );
    expect(() => originCheck(['https://x.example/refs'], 'allowedOrigins')).toThrow(/origin only/);
    expect(() => originCheck(['not a url'], 'allowedOrigins')).toThrow(/is not a URL/);
    expect(() => originCheck('https://x.example' as unknown as string[], 'allowedOrigins')).toThrow(/must be an array/);
    expect(originCheck([], 'a')(new URL('https://files.example.com'))).toBe(false);
  });

  it('fills in the defaults, and refuses a checksum rule or hook given as anything else (null from JavaScript)', () => {
    const resolved = resolveImportPolicy({ allowedOrigins: [] }, 'dataReferencesServer: import');
    expect(resolved).toMatchObject({
      maxBytes: 1024 * 1024 * 1024,
      maxRedirects: 3,
      maxResumes: 3,
      requireChecksum: true,
    });
    expect(resolved.fetch).toBe(fetch);
    expect(resolveImportPolicy({ allowedOrigins: [], maxRedirects: 0 }, 'w').maxRedirects).toBe(0);
    const withNull = (field: string) => () =>
      resolveImportPolicy({ allowedOrigins: [], [field]: null }, 'dataReferencesServer: import');
    expect(withNull('requireChecksum')).toThrow('dataReferencesServer: import: requireChecksum must be a boolean');
    expect(withNull('fetch')).toThrow('dataReferencesServer: import: fetch must be a function');
    expect(withNull('now')).toThrow('dataReferencesServer: import: now must be a function');
    expect(withNull('maxBytes')).toThrow(ConfigurationError);
  });

  it('DREF-12: only http(s) URLs without credentials from allowed origins are fetched', () => {
    expect(checkAccessUrl('https://files.example.com/refs/a', allowed)).toMatchObject({ ok: true });
    for (const url of [
      'file:///etc/passwd',
      'ftp://files.example.com/a',
      'data:text/plain,hi',
      'javascript:alert(1)',
      'https://user:pw@files.example.com/a',
      'nope',
    ]) {
      const decision = checkAccessUrl(url, allowed);
      expect(decision.ok, url).toBe(false);
      if (!decision.ok) expect(decision.error.code, url).toBe('UNSUPPORTED_URL');
    }
    const missing = checkAccessUrl(undefined, allowed);
    expect(!missing.ok && missing.error.code).toBe('UNSUPPORTED_URL');
    const foreign = checkAccessUrl('https://other.example/refs/a', allowed);
    expect(!foreign.ok && foreign.error.toStructured()).toMatchObject({
      code: 'ORIGIN_NOT_ALLOWED',
      category: 'permanent',
      details: { origin: 'https://other.example' },
    });
  });

  it('DREF-13: redirects are followed within one origin only', () => {
    const from = new URL('https://files.example.com/refs/a?sig=1');
    expect(checkRedirect(from, '/refs/b')).toMatchObject({
      ok: true,
      url: new URL('https://files.example.com/refs/b'),
    });
    expect(checkRedirect(from, 'https://files.example.com/x')).toMatchObject({ ok: true });
    for (const location of [
      'https://evil.example/x',
      'http://files.example.com/x',
      'https://files.example.com:8443/x',
      '//evil.example/x',
      'file:///etc/passwd',
    ]) {
      const decision = checkRedirect(from, location);
      expect(decision.ok, location).toBe(false);
      if (!decision.ok) expect(decision.error.code, location).toBe('REDIRECT_REFUSED');
    }
    const none = checkRedirect(from, null);
    expect(!none.ok && none.error.code).toBe('TRANSFER_FAILED');
  });
});

describe('boundary parsing (DREF-11, DREF-19)', () => {
  it('DREF-11: import params name the first bad field', () => {
    expect(parseImportRequest({ ref_id: 'r', origin_server: 'a', _meta: { x: 1 } })).toEqual({
      ok: true,
      value: { ref_id: 'r', origin_server: 'a' },
    });
    expect(parseImportRequest({ origin_server: 'a' })).toMatchObject({
      ok: false,
      field: 'ref_id',
      pointer: '/ref_id',
    });
    expect(parseImportRequest({ ref_id: 'r', origin_server: 'a', size_bytes: -1 })).toMatchObject({
      ok: false,
      field: 'size_bytes',
    });
    expect(
      parseImportRequest({ ref_id: 'r', origin_server: 'a', checksum: { algorithm: 'crc32', value: 'ab' } }),
    ).toMatchObject({ ok: false, pointer: expect.stringMatching(/^\/checksum/) as string });
  });

  it('DREF-19: upload params name the first bad field; media types cannot carry a header line', () => {
    expect(parseUploadRequest({ mime_type: 'image/png', size_bytes: 3 })).toEqual({
      ok: true,
      value: { mime_type: 'image/png', size_bytes: 3 },
    });
    expect(parseUploadRequest({ mime_type: 'image/png\r\nx-evil: 1' })).toMatchObject({
      ok: false,
      field: 'mime_type',
    });
    expect(parseUploadRequest({ mime_type: 'image/png', size_bytes: 1.5 })).toMatchObject({
      ok: false,
      field: 'size_bytes',
    });
    expect(isMimeType('text/csv; charset=utf-8')).toBe(true);
    expect(essenceOf('Image/PNG; q=1')).toBe('image/png');
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(isMimeType(`${a}\n${b}`)).toBe(false);
        expect(isMimeType(`${a}\r${b}`)).toBe(false);
      }),
    );
    expect(isRefId('ref-AbC_9')).toBe(true);
    expect(isRefId('../etc')).toBe(false);
  });
});

describe('tool results (DREF-3)', () => {
  const reference: DataReference = {
    ref_id: 'ref-1',
    origin_server: 'exporter',
    mime_type: 'text/csv',
    size_bytes: 12,
    expires_at: '2030-01-01T00:00:00.000Z',
    access_url: 'https://files.example.com/refs/ref-1?expires=1&sig=x',
    checksum: { algorithm: 'sha256', value: 'a'.repeat(64) },
  };

  it('DREF-3: a reference result carries _meta for extension clients and a resource_link for everyone', () => {
    const result = referenceResult(reference, { text: 'Exported.' });
    expect(result.content).toEqual([
      { type: 'text', text: 'Exported.' },
      {
        type: 'resource_link',
        uri: reference.access_url,
        name: 'ref-1',
        mimeType: 'text/csv',
        size: 12,
        description: `Data reference ref-1 from origin_server exporter; sha256 ${'a'.repeat(64)}; the link expires at 2030-01-01T00:00:00.000Z.`,
      },
    ]);
    expect(referencesInResult(result, DATA_REFERENCES_ID)).toEqual([reference]);
    expect(
      referencesInResult({ _meta: { [DATA_REFERENCES_ID]: { references: [{ ref_id: 1 }] } } }, DATA_REFERENCES_ID),
    ).toEqual([]);
    expect(referencesInResult({}, DATA_REFERENCES_ID)).toEqual([]);
  });
});
