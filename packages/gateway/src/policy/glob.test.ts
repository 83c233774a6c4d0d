import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { globMatches, globMatchesAny, isValidGlob } from './glob.js';

/** The meaning of a glob, written the obvious way: a regular expression over the whole name. */
function oracle(glob: string, name: string): boolean {
  const source = Array.from(glob)
    .map((char) =>
      char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`, 'u').test(name);
}

describe('globMatches', () => {
  it.each([
    ['write_file', 'write_file', true],
    ['write_*', 'write_file', true],
    ['write_*', 'write_', true],
    ['*_file', 'write_file', true],
    ['w*e_f*e', 'write_file', true],
    ['*', '', true],
    ['*', 'anything at all', true],
    ['?', 'a', true],
    ['?', '', false],
    ['?', 'ab', false],
    ['?', 'é', true],
    ['a?', 'a😀', true],
    ['write_?ile', 'write_file', true],
    ['write', 'write_file', false],
    ['file', 'write_file', false],
    ['Write_file', 'write_file', false],
    ['a.b', 'axb', false],
    ['fs__*', 'fs__read', true],
    ['fs__*', 'web__read', false],
    ['**', 'x', true],
    ['*a*a*a*a*b', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', false],
  ])('%s against %s: %s', (glob, name, expected) => {
    expect(globMatches(glob, name)).toBe(expected);
  });

  it('matches a tool by any of its names', () => {
    expect(globMatchesAny('read_*', ['fs__read_file', 'read_file'])).toBe(true);
    expect(globMatchesAny('web__*', ['fs__read_file', 'read_file'])).toBe(false);
  });

  const alphabet = fc.constantFrom('a', 'b', '_', '.', '*', '?');
  const nameAlphabet = fc.constantFrom('a', 'b', '_', '.', '*', '?', 'c');

  it('agrees with the regular expression it stands for (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, maxLength: 8 }),
        fc.string({ unit: nameAlphabet, maxLength: 10 }),
        (glob, name) => {
          expect(globMatches(glob, name)).toBe(oracle(glob, name));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a glob made from a name by wildcards matches that name (property)', () => {
    // Each character is kept, becomes `?`, becomes `*`, or gets a `*` (matching nothing) before it.
    const choice = fc.constantFrom('keep', '?', '*', 'star-before');
    const named = fc
      .string({ minLength: 1, maxLength: 20 })
      .chain((name) =>
        fc.tuple(fc.constant(name), fc.array(choice, { minLength: name.length, maxLength: name.length })),
      );
    fc.assert(
      fc.property(named, ([name, choices]) => {
        const glob = Array.from(name)
          .map((char, index) => {
            const picked = choices[index];
            if (picked === '?' || picked === '*') return picked;
            return picked === 'star-before' ? `*${char}` : char;
          })
          .join('');
        expect(globMatches(glob, name)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('isValidGlob', () => {
  it.each(['write_file', 'write_*', 'fs__*', '*', 'a?c', 'files/read.v2', 'a-b'])('%s is a glob', (key) => {
    expect(isValidGlob(key)).toBe(true);
  });

  it.each(['', 'write file', '[abc]', '{a,b}', '!write', 'x'.repeat(129), 'é'])('%j is not', (key) => {
    expect(isValidGlob(key)).toBe(false);
  });
});
