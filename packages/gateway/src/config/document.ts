/**
 * Reading a config document's text (YAML or JSON) into plain data, with the
 * line of every field kept for error messages. Syntax errors name their line.
 * Pure.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { configError, type ErrorPlace, type FieldPath, type GatewayConfigError } from './errors.js';

export type ConfigFormat = 'yaml' | 'json';

/** A document read into plain data, and the line each field is on. */
export interface ParsedDocument {
  readonly value: unknown;
  /** The 1-based line of the field at `path` (of its nearest present parent when it is missing). */
  readonly lineOf: (path: FieldPath) => number | undefined;
}

/** Deeper than this, a config is a mistake (or an attack on the stack). */
const MAX_DEPTH = 64;

const YAML_OPTIONS = {
  merge: true,
  prettyErrors: false,
  uniqueKeys: true,
  logLevel: 'error',
} as const;

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function lineLocator(document: Document, lines: LineCounter): (path: FieldPath) => number | undefined {
  const lineAt = (node: { range?: readonly number[] | null | undefined } | null | undefined): number | undefined => {
    const start = node?.range?.[0];
    return start === undefined ? undefined : lines.linePos(start).line;
  };
  return (path) => {
    let node: unknown = document.contents;
    let line = lineAt(document.contents);
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => keyText(item.key) === String(segment));
        if (pair === undefined) return line;
        line = lineAt(pair.key as Node | null) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        line = lineAt(node as Node | undefined) ?? line;
      } else {
        return line;
      }
    }
    return line;
  };
}

/** Where a key that appears twice is: its path (the second one's), and the lines of both. */
interface Repeated {
  readonly path: FieldPath;
  readonly first: number | undefined;
  readonly again: number;
}

type Pair = { readonly key: unknown; readonly value: unknown };

/**
 * The key the YAML parser refused as a repeat, found by where its second
 * occurrence starts (`offset`), walked without recursion (a document may
 * nest deep). `undefined` when no map key starts there.
 */
function repeatedKey(document: Document, lines: LineCounter, offset: number): Repeated | undefined {
  const pending: { node: unknown; path: FieldPath }[] = [{ node: document.contents, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path } = next;
    if (isSeq(node)) node.items.forEach((item, index) => pending.push({ node: item, path: [...path, index] }));
    if (!isMap(node)) continue;
    const pairs = node.items as readonly Pair[];
    const again = pairs.find((pair) => (pair.key as Node | null)?.range?.[0] === offset);
    if (again !== undefined) {
      const name = keyText(again.key);
      const first = pairs.find((pair) => keyText(pair.key) === name);
      const start = (first?.key as Node | null)?.range?.[0];
      return {
        path: [...path, name],
        first: start === undefined ? undefined : lines.linePos(start).line,
        again: lines.linePos(offset).line,
      };
    }
    for (const pair of pairs) pending.push({ node: pair.value, path: [...path, keyText(pair.key)] });
  }
  return undefined;
}

/** The error of a key given twice in one map (`object`, in JSON): it names the key and both lines. */
function repeatedKeyError(
  document: Document,
  lines: LineCounter,
  offset: number,
  context: { readonly place: ErrorPlace; readonly container: string },
): GatewayConfigError | undefined {
  const repeated = repeatedKey(document, lines, offset);
  if (repeated === undefined) return undefined;
  const where =
    repeated.first === undefined ? `line ${repeated.again}` : `lines ${repeated.first} and ${repeated.again}`;
  return configError(
    { path: repeated.path, problem: `appears twice in one ${context.container} (${where}): give each key once` },
    { ...context.place, line: repeated.again },
  );
}

function yamlDocument(text: string): { document: Document; lines: LineCounter } {
  const lines = new LineCounter();
  const document = parseDocument(text, { ...YAML_OPTIONS, lineCounter: lines });
  return { document, lines };
}

function readYaml(text: string, place: ErrorPlace): ParsedDocument {
  const { document, lines } = yamlDocument(text);
  const [problem] = [...document.errors, ...document.warnings];
  if (problem?.code === 'DUPLICATE_KEY') {
    const repeated = repeatedKeyError(document, lines, problem.pos[0], { place, container: 'map' });
    if (repeated !== undefined) throw repeated;
  }
  if (problem !== undefined) {
    const line = lines.linePos(problem.pos[0]).line;
    throw configError({ path: [], problem: `is not valid YAML: ${problem.message}` }, { ...place, line });
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Aliases that cannot be resolved or expand too far are found only here.
    throw configError({ path: [], problem: `cannot be read: ${(error as Error).message}` }, place);
  }
  return { value, lineOf: lineLocator(document, lines) };
}

function lineOfOffset(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function readJson(text: string, place: ErrorPlace): ParsedDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1];
    const line = offset === undefined ? undefined : lineOfOffset(text, Number(offset));
    throw configError({ path: [], problem: `is not valid JSON: ${message}` }, { ...place, line });
  }
  // The same text read as YAML (JSON is YAML) tells the lines, and finds keys JSON.parse lets repeat.
  const { document, lines } = yamlDocument(text);
  const repeated = document.errors.find((problem) => problem.code === 'DUPLICATE_KEY');
  if (repeated !== undefined) {
    const named = repeatedKeyError(document, lines, repeated.pos[0], { place, container: 'object' });
    if (named !== undefined) throw named;
    const line = lines.linePos(repeated.pos[0]).line;
    throw configError({ path: [], problem: 'is not valid: a key appears twice in one object' }, { ...place, line });
  }
  return { value, lineOf: lineLocator(document, lines) };
}

function nonJsonValue(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `must be a finite number, got ${value}`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (Array.isArray(value)) return undefined;
  if (typeof value === 'object') {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) return undefined;
  }
  return 'must be plain data (a string, number, boolean, null, list or map), not a tagged value';
}

/** The first value that is not plain JSON data (a YAML `!!binary`, `.nan`, ...) or nests too deep. */
export function plainDataFault(
  value: unknown,
  path: FieldPath = [],
): { readonly path: FieldPath; readonly problem: string } | undefined {
  const problem = nonJsonValue(value);
  if (problem !== undefined) return { path, problem };
  if (typeof value !== 'object' || value === null) return undefined;
  if (path.length >= MAX_DEPTH) return { path, problem: `nests deeper than ${MAX_DEPTH} levels` };
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item: unknown, index) => [index, item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    const fault = plainDataFault(item, [...path, key]);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/** `text` read as `format`; throws a `GatewayConfigError` naming the line of a syntax error. */
export function readDocument(text: string, format: ConfigFormat, place: ErrorPlace = {}): ParsedDocument {
  const parsed = format === 'json' ? readJson(text, place) : readYaml(text, place);
  const fault = plainDataFault(parsed.value);
  if (fault !== undefined) throw configError(fault, { ...place, line: parsed.lineOf(fault.path) });
  return parsed;
}
