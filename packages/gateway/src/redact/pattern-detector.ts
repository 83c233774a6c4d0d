/**
 * What a detector is, and the detector made from a regular expression: it
 * finds one kind of secret in a string and replaces each match with
 * `[REDACTED:<id>]`, never touching a marker already there. Pure.
 */

/** What one detector did to one string. */
export interface DetectorResult {
  readonly text: string;
  readonly count: number;
}

export interface Detector {
  /** Names the detector in the marker (`[REDACTED:<id>]`) and in `Redaction.detectors`. */
  readonly id: string;
  /** Replaces this detector's matches within one string, leaving existing markers alone. */
  redact(text: string): DetectorResult;
}

/**
 * Given a match and the marker, the text to put in its place, or `undefined`
 * to leave this match as it is (a candidate the pattern could not rule out).
 */
export type Rewrite = (match: RegExpExecArray, marker: string) => string | undefined;

/** The text that stands for a secret found by detector `id`. */
export function redactionMarker(id: string): string {
  return `[REDACTED:${id}]`;
}

const MARKER = /\[REDACTED:[a-z0-9][a-z0-9-]{0,63}\]/gu;
const WHOLE_MARKER = /^\[REDACTED:[a-z0-9][a-z0-9-]{0,63}\]$/u;

/** Whether `text` is exactly one marker (a value redacted before). */
export function isRedactionMarker(text: string): boolean {
  return WHOLE_MARKER.test(text);
}

const replaceWhole: Rewrite = (_match, marker) => marker;

function replaceMatches(text: string, pattern: RegExp, marker: string, rewrite: Rewrite): DetectorResult {
  let out = '';
  let copied = 0;
  let count = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    // An empty match would "redact" nothing and count it; only an operator's pattern can produce one.
    if (match[0] === '') {
      pattern.lastIndex += (text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1;
      continue;
    }
    const replacement = rewrite(match, marker);
    if (replacement === undefined) continue;
    out += text.slice(copied, match.index) + replacement;
    copied = match.index + match[0].length;
    count += 1;
  }
  return count === 0 ? { text, count } : { text: out + text.slice(copied), count };
}

export interface PatternDetectorOptions {
  /** What replaces a match; default the whole match becomes the marker. */
  readonly rewrite?: Rewrite;
  /**
   * A cheap test every match implies (a literal prefix, a key word followed by
   * a separator): text it does not match is returned without running the
   * pattern. It must not match a marker, or every redacted text would pass it.
   */
  readonly hint?: RegExp;
}

/**
 * A detector from a regular expression. It runs on the text between existing
 * markers only, so a marker is never redacted again (which keeps redaction
 * idempotent) and no match spans a marker.
 */
export function patternDetector(id: string, source: RegExp, options: PatternDetectorOptions = {}): Detector {
  const { rewrite = replaceWhole, hint } = options;
  const marker = redactionMarker(id);
  // Our own global copy: its `lastIndex` is reset on every use, and redaction is synchronous.
  const pattern = new RegExp(source.source, source.flags.includes('g') ? source.flags : `${source.flags}g`);
  return {
    id,
    redact(text) {
      if (hint !== undefined && !hint.test(text)) return { text, count: 0 };
      if (!text.includes('[REDACTED:')) return replaceMatches(text, pattern, marker, rewrite);
      return replaceBetweenMarkers(text, pattern, marker, rewrite);
    },
  };
}

function replaceBetweenMarkers(text: string, pattern: RegExp, marker: string, rewrite: Rewrite): DetectorResult {
  let out = '';
  let copied = 0;
  let count = 0;
  for (const found of text.matchAll(MARKER)) {
    const part = replaceMatches(text.slice(copied, found.index), pattern, marker, rewrite);
    out += part.text + found[0];
    count += part.count;
    copied = found.index + found[0].length;
  }
  const tail = replaceMatches(text.slice(copied), pattern, marker, rewrite);
  return count + tail.count === 0 ? { text, count: 0 } : { text: out + tail.text, count: count + tail.count };
}
