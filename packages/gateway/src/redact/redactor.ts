/**
 * Applying the detectors: to one string, to any JSON-like value (a deep
 * copy; keys that name a secret have their string value replaced whole), and
 * to an MCP tool result. Pure: the input is never mutated.
 */
import { ConfigurationError } from '@ext/core';
import { BUILTIN_DETECTORS, isSecretKey } from './detectors.js';
import { isRedactionMarker, patternDetector, redactionMarker, type Detector } from './pattern-detector.js';

/** An operator's own detector: `pattern` is JavaScript regular expression source, compiled with flags `gu`. */
export interface RedactionPattern {
  readonly id: string;
  readonly pattern: string;
}

export interface RedactorOptions {
  /** Extra detectors, run after the built-ins; the whole match is replaced. Default none. */
  readonly patterns?: readonly RedactionPattern[];
  /** Whether the built-in detectors (and secret-named keys in `value()`) apply. Default `true`. */
  readonly builtins?: boolean;
}

export interface Redaction<T> {
  readonly value: T;
  /** How many secrets were replaced. */
  readonly count: number;
  /** The ids of the detectors that fired, sorted, each once. */
  readonly detectors: readonly string[];
}

export interface Redactor {
  text(value: string): Redaction<string>;
  /**
   * A deep copy of a JSON-like value with every string redacted and the string
   * value of every secret-named key (`password`, `client_secret`, `apiKey`,
   * ...) replaced whole. Never mutates the input and never throws: a cycle
   * becomes {@link CIRCULAR_MARKER}, a container nested deeper than
   * {@link MAX_DEPTH} becomes {@link DEPTH_MARKER}. Non-string leaves
   * (numbers, booleans, null, dates, binary views) are kept; any other object
   * is copied as its own enumerable data properties (getters are not run).
   */
  value<T>(value: T): Redaction<T>;
}

/** How many levels of containers `value()` copies, the root's included; one deeper becomes {@link DEPTH_MARKER}. */
export const MAX_DEPTH = 64;
export const CIRCULAR_MARKER = '[Circular]';
export const DEPTH_MARKER = '[Truncated:depth]';

const DETECTOR_ID = /^[a-z0-9][a-z0-9-]{0,63}$/u;
const PASSWORD_FIELD = 'password-field';

// Each pass only shrinks the text outside markers, so passes end; a second pass is needed only when a
// replacement changed what a neighbour's boundary sees. The cap is a guard, never reached in practice.
const MAX_PASSES = 8;

/** Creates a redactor; throws `ConfigurationError` (`INVALID_OPTION`) naming a bad pattern's index and id. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const { patterns = [], builtins = true } = options;
  const detectors = [...(builtins ? BUILTIN_DETECTORS : []), ...patterns.map(compilePattern)];
  refuseDuplicateIds(detectors);
  return {
    text(value) {
      const fired = new Set<string>();
      const redacted = redactString(detectors, value, fired);
      return { value: redacted.text, count: redacted.count, detectors: [...fired].sort() };
    },
    value(value) {
      const walk: Walk = { detectors, secretKeys: builtins, count: 0, fired: new Set(), ancestors: new Set() };
      const copy = walkValue(walk, value, 0) as typeof value;
      return { value: copy, count: walk.count, detectors: [...walk.fired].sort() };
    },
  };
}

function compilePattern(entry: RedactionPattern, index: number): Detector {
  const where = `createRedactor: patterns[${index}]`;
  if (!DETECTOR_ID.test(entry.id)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}.id ${JSON.stringify(entry.id)} must be lower-case letters, digits and "-" (1 to 64, not starting with "-")`,
    );
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(entry.pattern, 'gu');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}.pattern (id "${entry.id}") is not a valid regular expression: ${reason}`,
    );
  }
  if (matchesEmpty(pattern)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}.pattern (id "${entry.id}") matches the empty string; it must match at least one character`,
    );
  }
  return patternDetector(entry.id, pattern);
}

// Probes catch `x*`, `a|`, `\b`, `$` and the like; an empty match that slips through is skipped when redacting.
const EMPTY_PROBES = ['', 'a', 'A0 _-.x'];

function matchesEmpty(pattern: RegExp): boolean {
  const probe = new RegExp(pattern.source, 'u');
  return EMPTY_PROBES.some((text) => probe.exec(text)?.[0] === '');
}

function refuseDuplicateIds(detectors: readonly Detector[]): void {
  const seen = new Set<string>();
  for (const { id } of detectors) {
    if (seen.has(id)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `createRedactor: patterns: id "${id}" is used twice (ids must be unique, built-ins included)`,
      );
    }
    seen.add(id);
  }
}

function redactString(
  detectors: readonly Detector[],
  text: string,
  fired: Set<string>,
): { text: string; count: number } {
  let current = text;
  let count = 0;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    let found = 0;
    for (const detector of detectors) {
      const result = detector.redact(current);
      if (result.count === 0) continue;
      fired.add(detector.id);
      found += result.count;
      current = result.text;
    }
    if (found === 0) break;
    count += found;
  }
  return { text: current, count };
}

interface Walk {
  readonly detectors: readonly Detector[];
  /** Whether secret-named keys are redacted (the structured half of `password-field`). */
  readonly secretKeys: boolean;
  count: number;
  readonly fired: Set<string>;
  /** The containers on the path from the root: seeing one again is a cycle (a shared one is not). */
  readonly ancestors: Set<object>;
}

function walkValue(walk: Walk, node: unknown, depth: number): unknown {
  if (typeof node === 'string') {
    const redacted = redactString(walk.detectors, node, walk.fired);
    walk.count += redacted.count;
    return redacted.text;
  }
  if (typeof node !== 'object' || node === null || isOpaque(node)) return node;
  if (walk.ancestors.has(node)) return CIRCULAR_MARKER;
  if (depth >= MAX_DEPTH) return DEPTH_MARKER;
  walk.ancestors.add(node);
  const copy = Array.isArray(node)
    ? node.map((item: unknown) => walkValue(walk, item, depth + 1))
    : walkObject(walk, node, depth);
  walk.ancestors.delete(node);
  return copy;
}

/** Dates and binary views hold no text worth scanning; copying them key by key would mangle them. */
function isOpaque(node: object): boolean {
  return node instanceof Date || ArrayBuffer.isView(node) || node instanceof ArrayBuffer;
}

function walkObject(walk: Walk, node: object, depth: number): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(node)) {
    const descriptor = Object.getOwnPropertyDescriptor(node, key);
    // Accessors are left out, as @ext/errors does: running a getter could throw or have effects.
    if (descriptor === undefined || !('value' in descriptor)) continue;
    const item: unknown = descriptor.value;
    entries.push([key, walkProperty(walk, key, item, depth)]);
  }
  // fromEntries defines properties, so a `__proto__` key from JSON stays a key.
  return Object.fromEntries(entries);
}

function walkProperty(walk: Walk, key: string, item: unknown, depth: number): unknown {
  // An empty value or one redacted before stays, so that redacting twice changes nothing.
  if (walk.secretKeys && typeof item === 'string' && item !== '' && !isRedactionMarker(item) && isSecretKey(key)) {
    walk.count += 1;
    walk.fired.add(PASSWORD_FIELD);
    return redactionMarker(PASSWORD_FIELD);
  }
  return walkValue(walk, item, depth + 1);
}

/** The parts of an MCP `CallToolResult` redaction looks at; anything else is copied as it is. */
export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  [key: string]: unknown;
}

/**
 * Redacts what an upstream tool returned: `content` (the text of text items
 * and of embedded text resources; image and audio items and resource blobs
 * are kept as they are, since base64 is not text; any other item, such as a
 * `resource_link`, as a value) and `structuredContent`. Other fields, `_meta`
 * and `isError` included, are kept as they are.
 */
export function redactToolResult<R extends ToolResultLike>(redactor: Redactor, result: R): Redaction<R> {
  const parts: Redaction<unknown>[] = [];
  const out: ToolResultLike = { ...result };
  if ('content' in result) {
    out.content = Array.isArray(result.content)
      ? result.content.map((item: unknown) => collect(parts, redactContentItem(redactor, item)))
      : collect(parts, redactor.value(result.content));
  }
  if ('structuredContent' in result) out.structuredContent = collect(parts, redactor.value(result.structuredContent));
  const detectors = new Set(parts.flatMap((part) => part.detectors));
  return {
    value: out as R,
    count: parts.reduce((sum, part) => sum + part.count, 0),
    detectors: [...detectors].sort(),
  };
}

function collect<T>(parts: Redaction<unknown>[], part: Redaction<T>): T {
  parts.push(part);
  return part.value;
}

const UNCHANGED = { count: 0, detectors: [] } as const;

function redactContentItem(redactor: Redactor, item: unknown): Redaction<unknown> {
  if (!isRecord(item)) return redactor.value(item);
  if (item.type === 'image' || item.type === 'audio') return { value: item, ...UNCHANGED };
  if (item.type === 'text' && typeof item.text === 'string') {
    const text = redactor.text(item.text);
    return { ...text, value: { ...item, text: text.value } };
  }
  if (item.type === 'resource' && isRecord(item.resource)) {
    const resource = item.resource;
    if (typeof resource.text !== 'string') return { value: item, ...UNCHANGED };
    const text = redactor.text(resource.text);
    return { ...text, value: { ...item, resource: { ...resource, text: text.value } } };
  }
  return redactor.value(item);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
