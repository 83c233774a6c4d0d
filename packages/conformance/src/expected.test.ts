import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExpectedFailures } from './expected.js';

describe('parseExpectedFailures', () => {
  it('reads a bare list and an expected_failures list', () => {
    expect(parseExpectedFailures('- errors/readable-text\n- base/tools-list\n')).toEqual(
      new Set(['errors/readable-text', 'base/tools-list']),
    );
    expect(parseExpectedFailures('expected_failures:\n  - idempotency/replay\n')).toEqual(
      new Set(['idempotency/replay']),
    );
    expect(parseExpectedFailures('')).toEqual(new Set());
  });

  it('names the entry that is not a check id', () => {
    expect(() => parseExpectedFailures('- errors/readable-text\n- 42\n', 'baseline.yml')).toThrow(
      /baseline.yml: entry 2 is 42/,
    );
    expect(() => parseExpectedFailures('server: [a]', 'x.yml')).toThrow(/x.yml: expected a list of check ids/);
    expect(() => parseExpectedFailures('- [unclosed', 'x.yml')).toThrow(/x.yml: not valid YAML/);
  });

  it('either returns check ids or throws a plain Error, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          for (const id of parseExpectedFailures(text)) expect(id).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+$/);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });
});
