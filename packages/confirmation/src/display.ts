/**
 * How a caller's value is shown to a person inside a confirmation message
 * (CONF-4a): characters that act instead of showing (terminal controls,
 * line breaks), that reorder or hide the text around them (bidi controls,
 * zero-width and other invisible characters) or that are not text at all
 * (lone surrogates) become visible escapes, and the result is capped.
 */

/**
 * Controls (C0, DEL, C1), format characters (bidi embeddings, overrides,
 * isolates and marks, zero-width spaces and joiners, BOM, tags), line and
 * paragraph separators, lone surrogates, and every other default-ignorable
 * (invisible) code point.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]$/u;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Whether one code point would act, hide or move text instead of showing as itself. */
export function isHiddenCharacter(char: string): boolean {
  return HIDDEN.test(char);
}

/** The visible escape of one code point: `\n`, `\r`, `\t`, else `\u001b` (or `\u{e0041}` beyond the BMP). */
export function visibleEscape(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).padStart(4, '0');
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
}

/**
 * `text` as a person may safely see it: each hidden character replaced by
 * its visible escape, then cut to at most `maxLength` UTF-16 units with a
 * trailing `…`. The cut falls between code points and never inside an
 * escape, so it creates no lone surrogate and no half escape. Work stops at
 * the cap, whatever the length of `text`.
 */
export function displayText(text: string, maxLength: number): string {
  let shown = '';
  // The longest prefix that still leaves room for the ellipsis.
  let fitted = '';
  for (const char of text) {
    const piece = isHiddenCharacter(char) ? visibleEscape(char) : char;
    if (shown.length + piece.length > maxLength) return `${fitted}…`;
    shown += piece;
    if (shown.length < maxLength) fitted = shown;
  }
  return shown;
}
