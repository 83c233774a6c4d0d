import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkOwnIdentifier,
  extensionId,
  isExtensionId,
  parseExtensionId,
  pickCommonIdentifier,
  VENDOR_PREFIX,
} from './identifiers.js';

describe('extension identifiers (SEP-2133)', () => {
  it('builds ours from the one vendor prefix', () => {
    expect(extensionId('errors')).toBe(`${VENDOR_PREFIX}/errors`);
    expect(extensionId('errors', 2)).toBe('io.github.mcp-ext/errors-v2');
    expect(() => extensionId('-bad')).toThrow(/extension name/);
    expect(() => extensionId('errors', 0)).toThrow(/generation/);
  });

  it.each([
    ['io.modelcontextprotocol/oauth-client-credentials', true],
    ['com.example/websocket-transport', true],
    ['io.github.mcp-ext/errors-v2', true],
    ['a/b', true],
    ['com.example/a.b_c-d', true],
    ['errors', false],
    ['/errors', false],
    ['com.example/', false],
    ['com..example/x', false],
    ['1com.example/x', false],
    ['com.example-/x', false],
    ['com.example/-x', false],
    ['com.example/x_', false],
    ['com.example/x/y', false],
    ['com.exa mple/x', false],
  ])('%s valid: %s', (id, valid) => {
    expect(isExtensionId(id)).toBe(valid);
  });

  it('flags reserved prefixes and refuses them for our own ids', () => {
    const official = parseExtensionId('io.modelcontextprotocol/ui');
    expect(official.ok && official.value.reserved).toBe(true);
    expect(
      parseExtensionId('dev.mcp/x').ok &&
        (parseExtensionId('dev.mcp/x') as { value: { reserved: boolean } }).value.reserved,
    ).toBe(true);
    expect(checkOwnIdentifier('io.modelcontextprotocol/content-negotiation').ok).toBe(false);
    expect(
      checkOwnIdentifier('io.modelcontextprotocol/content-negotiation', ['io.modelcontextprotocol/content-negotiation'])
        .ok,
    ).toBe(true);
    expect(checkOwnIdentifier('io.github.mcp-ext/errors').ok).toBe(true);
  });

  it('reads the wire generation from a -vN suffix', () => {
    const parsed = parseExtensionId('io.github.mcp-ext/errors-v3');
    expect(parsed.ok && parsed.value).toMatchObject({ baseName: 'errors', generation: 3 });
  });

  it('picks the newest identifier both sides advertise', () => {
    const ours = ['io.github.mcp-ext/errors', 'io.github.mcp-ext/errors-v2'];
    expect(pickCommonIdentifier(ours, ['io.github.mcp-ext/errors', 'io.github.mcp-ext/errors-v2'])).toBe(
      'io.github.mcp-ext/errors-v2',
    );
    expect(pickCommonIdentifier(ours, ['io.github.mcp-ext/errors'])).toBe('io.github.mcp-ext/errors');
    expect(pickCommonIdentifier(ours, ['io.github.mcp-ext/errors-v2'])).toBe('io.github.mcp-ext/errors-v2');
    expect(pickCommonIdentifier(ours, ['io.github.mcp-ext/other'])).toBeUndefined();
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = parseExtensionId(input);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly the identifiers built from valid labels and names (property)', () => {
    const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABC'.split(''));
    const inner = fc.string({ unit: fc.constantFrom(...'abz09-'.split('')), maxLength: 8 });
    const label = fc.tuple(letter, inner, fc.constantFrom('a', '9', 'Z')).map(([a, b, c]) => a + b + c);
    const nameChar = fc.constantFrom(...'az09'.split(''));
    const name = fc
      .tuple(nameChar, fc.string({ unit: fc.constantFrom(...'az09-_.'.split('')), maxLength: 10 }), nameChar)
      .map(([a, b, c]) => a + b + c);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), name, (labels, n) => {
        expect(isExtensionId(`${labels.join('.')}/${n}`)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        // Anything without a slash is never an identifier.
        if (!s.includes('/')) expect(isExtensionId(s)).toBe(false);
      }),
    );
  });
});
