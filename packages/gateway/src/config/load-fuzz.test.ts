// Fuzzing the loader: whatever the text, parseConfig returns a valid config or throws a GatewayConfigError naming a field.
import fc from 'fast-check';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { GatewayConfigError, type FieldPath } from './errors.js';
import { explain } from './explain.js';
import { parseConfig } from './load.js';
import { GatewayConfigSchema } from './schema.js';
import { copy, FULL_CONFIG, withValue } from './test-configs.js';

const validator = Compile(GatewayConfigSchema);

/** The outcome of parsing: the config, or the error (anything else thrown fails the test). */
function attempt(text: string, format: 'yaml' | 'json'): { config?: unknown; error?: GatewayConfigError } {
  try {
    return { config: parseConfig(text, { format }) };
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return { error };
    throw error;
  }
}

function expectNamedField(error: GatewayConfigError): void {
  expect(typeof error.field).toBe('string');
  expect(typeof error.pointer).toBe('string');
  expect(error.code).toBe('INVALID_CONFIG');
  if (error.field !== '') expect(error.message).toContain(error.field);
}

function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Whether `pointer` names something in `document`, or a member missing from something that is there. */
function namesPlaceIn(document: unknown, pointer: string): boolean {
  let node = document;
  const segments = pointerSegments(pointer);
  for (const [index, segment] of segments.entries()) {
    if (typeof node !== 'object' || node === null) return false;
    if (!Object.hasOwn(node, segment)) return index === segments.length - 1;
    node = (node as Record<string, unknown>)[segment];
  }
  return true;
}

const syntaxChars = fc.constantFrom(...'{}[]:,-?&*!|>#"\'\n\t %@`~.0123456789abcxyz_$\\'.split(''));

describe('parseConfig under random input', () => {
  it('random YAML-ish and JSON-ish text never throws anything but a GatewayConfigError with a field (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: syntaxChars, maxLength: 80 }), fc.constantFrom('yaml', 'json'), (text, format) => {
        const { error } = attempt(text, format);
        if (error !== undefined) expectNamedField(error);
      }),
      { numRuns: 1000 },
    );
  });

  it('random documents, written as YAML or JSON, are accepted exactly when the schema accepts them (property)', () => {
    const documents = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ upstreams: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })) }),
    );
    fc.assert(
      fc.property(documents, fc.boolean(), (document, asYaml) => {
        const outcome = asYaml ? attempt(stringify(document), 'yaml') : attempt(JSON.stringify(document), 'json');
        if (outcome.error !== undefined) {
          expectNamedField(outcome.error);
        } else {
          expect(validator.Check(outcome.config)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  /** Every path in `value` (objects and arrays), root included. */
  function allPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
    if (typeof value !== 'object' || value === null) return [prefix];
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item: unknown, index) => [index, item])
      : Object.entries(value);
    return [prefix, ...entries.flatMap(([key, item]) => allPaths(item, [...prefix, key]))];
  }

  const places = allPaths(FULL_CONFIG);
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 2 }) }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({
      kind: fc.constant('add' as const),
      at: fc.nat(),
      key: fc.string({ maxLength: 8 }),
      value: fc.jsonValue({ maxDepth: 1 }),
    }),
  );

  type Change = { kind: 'set' | 'delete' | 'add'; at: number; key?: string; value?: unknown };

  /** What `document` holds at `path`, if anything. */
  function valueAt(document: unknown, path: FieldPath): unknown {
    let node = document;
    for (const step of path) node = (node as Record<string | number, unknown> | undefined)?.[step];
    return node;
  }

  /**
   * `document` with `change` made: a value set or added at a path of FULL_CONFIG, or a member deleted.
   * A member added to an array is appended: an array has no named members in JSON (and `length` is not one).
   */
  function applyChange(document: unknown, change: Change): unknown {
    const path: FieldPath = places[change.at % places.length] ?? [];
    if (change.kind === 'set') return withValue(document, path, change.value);
    if (change.kind === 'add') {
      const target = valueAt(document, path);
      const key = Array.isArray(target) ? target.length : (change.key ?? 'x');
      return withValue(document, [...path, key], change.value);
    }
    if (path.length === 0) return document;
    const result = copy(document);
    const parent = valueAt(result, path.slice(0, -1));
    if (typeof parent === 'object' && parent !== null) {
      const last = path.at(-1) ?? '';
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else Reflect.deleteProperty(parent, last);
    }
    return result;
  }

  it('mutations of a valid config give a valid config or an error naming a place in the document (property)', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.boolean(), (changes, asYaml) => {
        const document = changes.reduce<unknown>((current, change) => applyChange(current, change), FULL_CONFIG);
        const outcome = asYaml ? attempt(stringify(document), 'yaml') : attempt(JSON.stringify(document), 'json');
        if (outcome.error !== undefined) {
          expectNamedField(outcome.error);
          expect(namesPlaceIn(document, outcome.error.pointer)).toBe(true);
        } else {
          expect(validator.Check(outcome.config)).toBe(true);
        }
        // The explanation and the compiled validator always agree on whether the document conforms.
        expect(explain(GatewayConfigSchema, document) === undefined).toBe(validator.Check(document));
      }),
      {
        numRuns: 1000,
        // Once found by CI: a member named `length` added to an array (the `args` of an upstream).
        examples: [
          [
            [
              { kind: 'add', at: 6, key: 'length', value: [null, null] },
              { kind: 'set', at: 0, value: {} },
            ],
            false,
          ],
        ],
      },
    );
  });
});
