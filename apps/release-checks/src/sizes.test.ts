import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, renderSizes, replaceMarkedSection } from './sizes.js';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [5 * 1024 * 1024, '5.0 MiB'],
    [3 * 1024 ** 3, '3.0 GiB'],
  ])('%d bytes is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('refuses what is not a byte count', () => {
    expect(() => formatBytes(-1)).toThrow(RangeError);
    expect(() => formatBytes(Number.NaN)).toThrow(RangeError);
  });
});

// Text that cannot contain a sizes marker, so the surrounding sections stay recognizable.
const prose = fc.string({ maxLength: 200 }).filter((text) => !text.includes('<!-- sizes:'));

describe('replaceMarkedSection', () => {
  it('replaces only what lies between the markers', () => {
    fc.assert(
      fc.property(prose, prose, prose, prose, (before, old, after, body) => {
        const document = `${before}<!-- sizes:start -->\n${old}\n<!-- sizes:end -->${after}`;
        const next = replaceMarkedSection(document, 'sizes', body);
        expect(next.startsWith(before)).toBe(true);
        expect(next.endsWith(after)).toBe(true);
        expect(next).toContain(`<!-- sizes:start -->\n${body.trimEnd()}\n<!-- sizes:end -->`);
        // Writing the same section twice changes nothing more.
        expect(replaceMarkedSection(next, 'sizes', body)).toBe(next);
      }),
    );
  });

  it("leaves other helpers' marked sections alone", () => {
    const document =
      '# Benchmarks\n\n<!-- bench:start -->\nnumbers\n<!-- bench:end -->\n\n<!-- sizes:start -->\nold\n<!-- sizes:end -->\n';
    expect(replaceMarkedSection(document, 'sizes', 'new')).toBe(
      '# Benchmarks\n\n<!-- bench:start -->\nnumbers\n<!-- bench:end -->\n\n<!-- sizes:start -->\nnew\n<!-- sizes:end -->\n',
    );
  });

  it('appends the section to a document without markers, and starts an empty one', () => {
    fc.assert(
      fc.property(
        prose.filter((text) => text.trim() !== ''),
        (document) => {
          const next = replaceMarkedSection(document, 'sizes', 'table');
          expect(next.startsWith(document.trimEnd())).toBe(true);
          expect(next.endsWith('<!-- sizes:start -->\ntable\n<!-- sizes:end -->\n')).toBe(true);
        },
      ),
    );
    expect(replaceMarkedSection('', 'sizes', 'table')).toBe(
      '# Benchmarks\n\n<!-- sizes:start -->\ntable\n<!-- sizes:end -->\n',
    );
  });

  it('refuses a start marker without its end, and a name that would not make a marker', () => {
    expect(() => replaceMarkedSection('<!-- sizes:start -->\nhalf', 'sizes', 'x')).toThrow(/no matching/);
    expect(() => replaceMarkedSection('', 'a b', 'x')).toThrow(RangeError);
  });
});

describe('renderSizes', () => {
  it('has one row per package and states what the consumer installed', () => {
    const body = renderSizes(
      [
        {
          name: '@ext/core',
          version: '0.1.0',
          files: 10,
          packedBytes: 2048,
          unpackedBytes: 8192,
          withDependenciesBytes: 1024 * 1024,
          dependencies: ['typebox'],
        },
        {
          name: '@ext/errors',
          version: '0.1.0',
          files: 5,
          packedBytes: 1024,
          unpackedBytes: 4096,
          withDependenciesBytes: 4096,
          dependencies: [],
        },
      ],
      { installed: ['@ext/core', '@ext/errors'], extBytes: 2 * 1024 * 1024, totalBytes: 40 * 1024 * 1024 },
      '2026-01-01',
    );
    expect(body).toContain('| `@ext/core` | 0.1.0 | 10 | 2.0 KiB | 8.0 KiB | 1.0 MiB | `typebox` |');
    expect(body).toContain('| `@ext/errors` | 0.1.0 | 5 | 1.0 KiB | 4.0 KiB | 4.0 KiB | none |');
    expect(body).toContain('2.0 MiB of its 40.0 MiB');
    expect(body).toContain('2026-01-01');
  });
});
