import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfirmationElicitation } from './client.js';
import { displayText, visibleEscape } from './display.js';
import { confirmationMessage, fillMessage, MAX_PLACEHOLDER_LENGTH, type ToolGate } from './logic.js';
import { confirmationElicitation } from './server.js';

/**
 * Written out independently of the implementation: C0 controls (newline
 * included), DEL and C1 controls, bidi embeddings, overrides, isolates and
 * marks, zero-width characters, word joiner, line and paragraph separators,
 * BOM, tag characters, and lone surrogates.
 */
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must never reach the message
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u2028\u2029\ufeff]|\p{Cs}|[\u{e0000}-\u{e007f}]/u;

const DANGEROUS = [
  '\u001b',
  '\u001b[2J',
  '\u001b]8;;https://evil.example\u0007',
  '\r',
  '\n',
  '\u0007',
  '\u0000',
  '\t',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u2028',
  '\u2029',
  '\u{e0041}',
  '\ud800',
  '\udfff',
];

/** Any code points, lone surrogates included, with the dangerous ones drawn often. */
const hostileString = fc
  .array(
    fc.oneof(
      fc.constantFrom(...DANGEROUS),
      fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
      fc.string(),
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

const hostileJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const gate = (message?: string): ToolGate => ({ requiresConfirmation: true, riskLevel: 'destructive', message });

describe('values shown in a confirmation message (CONF-4a)', () => {
  it('CONF-4a: whatever string a caller sends, the filled message holds no control, line break, bidi or invisible character (property)', () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        const message = fillMessage('Delete {repo} now?', { repo: value });
        expect(message).not.toMatch(FORBIDDEN);
        expect(message.length).toBeLessThanOrEqual('Delete  now?'.length + MAX_PLACEHOLDER_LENGTH);
      }),
      { numRuns: 500 },
    );
  });

  it('CONF-4a: the same for any JSON value, and for the generated message naming every argument (property)', () => {
    fc.assert(
      fc.property(hostileJson, fc.dictionary(hostileString, hostileJson, { maxKeys: 5 }), (value, args) => {
        expect(fillMessage('Move {v}', { v: value })).not.toMatch(FORBIDDEN);
        expect(confirmationMessage({ name: 'drop_db' }, gate(), args)).not.toMatch(FORBIDDEN);
      }),
      { numRuns: 300 },
    );
  });

  it('CONF-4a: text with nothing hidden, within the cap, is shown exactly as sent (property)', () => {
    fc.assert(
      // Printable ASCII (0x20 to 0x7e), and any letters, symbols or emoji below.
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: MAX_PLACEHOLDER_LENGTH }), (value) => {
        expect(fillMessage('{v}', { v: value })).toBe(value);
      }),
    );
    expect(fillMessage('Delete {repo}?', { repo: 'Ünïcødé 日本語 😀 café' })).toBe('Delete Ünïcødé 日本語 😀 café?');
  });

  it('CONF-4a: hidden characters become visible escapes, and a value always stays on one line', () => {
    expect(fillMessage('Delete {repo}?', { repo: 'prod\u001b[2J' })).toBe('Delete prod\\u001b[2J?');
    expect(fillMessage('Delete {repo}?', { repo: 'test\r\nRisk level: safe.' })).toBe(
      'Delete test\\r\\nRisk level: safe.?',
    );
    expect(fillMessage('Delete {repo}?', { repo: 'test\u202Eexe.txt' })).toBe('Delete test\\u202eexe.txt?');
    expect(fillMessage('{a}{b}{c}{d}', { a: '\u200b', b: '\u0085', c: '\u{e0041}', d: '\ud800' })).toBe(
      '\\u200b\\u0085\\u{e0041}\\ud800',
    );
    // JSON already escapes C0 controls; C1, bidi and invisible characters are escaped after it.
    expect(fillMessage('{v}', { v: { name: 'a\u001bb\u2066c' } })).toBe('{"name":"a\\u001bb\\u2066c"}');
    expect(visibleEscape('\t')).toBe('\\t');
    // The author's template keeps its own line breaks.
    expect(fillMessage('Delete {repo}?\nThis cannot be undone.', { repo: 'a\nb' })).toBe(
      'Delete a\\nb?\nThis cannot be undone.',
    );
  });

  it('CONF-4 CONF-4a: the cap counts the escapes, and the cut never splits an escape or a surrogate pair', () => {
    const max = MAX_PLACEHOLDER_LENGTH;
    expect(displayText('a'.repeat(max), max)).toBe('a'.repeat(max));
    expect(displayText('a'.repeat(max + 1), max)).toBe(`${'a'.repeat(max - 1)}…`);
    expect(displayText(`${'a'.repeat(max - 3)}\u001b`, max)).toBe(`${'a'.repeat(max - 3)}…`);
    expect(displayText(`${'a'.repeat(max - 2)}😀b`, max)).toBe(`${'a'.repeat(max - 2)}…`);
    expect(displayText('\u001b'.repeat(1_000_000), max)).toBe(`${'\\u001b'.repeat(33)}…`);
    fc.assert(
      fc.property(hostileString, fc.integer({ min: 1, max: 50 }), (value, cap) => {
        const shown = displayText(value, cap);
        expect(shown.length).toBeLessThanOrEqual(cap);
        expect(shown).not.toMatch(FORBIDDEN);
      }),
    );
  });

  it('CONF-4a CONF-6: a value cannot forge the risk line of the in-band question', () => {
    const message = fillMessage('Delete {repo}?', { repo: 'test\n\nRisk level: safe.' });
    const elicitation = confirmationElicitation('delete_repo', message, 'destructive');
    expect(elicitation.message.split('\n').filter((line) => line.startsWith('Risk level:'))).toEqual([
      'Risk level: destructive.',
    ]);
    expect(parseConfirmationElicitation(elicitation)).toMatchObject({ message, riskLevel: 'destructive' });
  });
});
