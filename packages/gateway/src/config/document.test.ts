import { describe, expect, it } from 'vitest';
import { plainDataFault, readDocument } from './document.js';
import { GatewayConfigError } from './errors.js';

const yaml = [
  'name: gw',
  'upstreams:',
  '  fs:',
  '    command: npx',
  '    args:',
  '      - -y',
  '      - files',
  '',
].join('\n');

function failure(run: () => unknown): GatewayConfigError {
  try {
    run();
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe('readDocument', () => {
  it('reads YAML and tells the line of each field, or of the nearest parent of a missing one', () => {
    const document = readDocument(yaml, 'yaml');
    expect(document.value).toEqual({ name: 'gw', upstreams: { fs: { command: 'npx', args: ['-y', 'files'] } } });
    expect(document.lineOf([])).toBe(1);
    expect(document.lineOf(['upstreams', 'fs', 'command'])).toBe(4);
    expect(document.lineOf(['upstreams', 'fs', 'args', 1])).toBe(7);
    expect(document.lineOf(['upstreams', 'fs', 'cwd'])).toBe(3);
    expect(document.lineOf(['upstreams', 'fs', 'command', 'deeper'])).toBe(4);
  });

  it('reads JSON and tells lines too', () => {
    const document = readDocument('{\n  "a": {\n    "b": [1,\n      2]\n  }\n}', 'json');
    expect(document.value).toEqual({ a: { b: [1, 2] } });
    expect(document.lineOf(['a', 'b', 1])).toBe(4);
  });

  it('names the line of a syntax error, and the source', () => {
    const error = failure(() => readDocument('a: 1\nb: {c: 2\n', 'yaml', { source: 'x.yaml' }));
    expect(error.source).toBe('x.yaml');
    expect(error.line).toBeGreaterThanOrEqual(2);
    expect(error.message).toMatch(/^x\.yaml line \d: the document is not valid YAML/);
  });

  it('names a key given twice in YAML, with the lines of both', () => {
    const text = ['name: gw', 'upstreams:', '  fs: { command: npx }', '  web: { url: x }', '  fs: { command: node }'];
    const error = failure(() => readDocument(text.join('\n'), 'yaml', { source: 'g.yaml' }));
    expect(error.field).toBe('upstreams.fs');
    expect(error.pointer).toBe('/upstreams/fs');
    expect(error.line).toBe(5);
    expect(error.message).toBe(
      'g.yaml line 5: upstreams.fs appears twice in one map (lines 3 and 5): give each key once',
    );
    const inList = failure(() =>
      readDocument('policy:\n  "*":\n    intent:\n      - { pattern: a, pattern: b }\n', 'yaml'),
    );
    expect(inList.field).toBe('policy["*"].intent[0].pattern');
    expect(inList.message).toContain('(lines 4 and 4)');
    expect(failure(() => readDocument('name: a\nname: b\n', 'yaml')).message).toBe(
      'line 2: name appears twice in one map (lines 1 and 2): give each key once',
    );
  });

  it('names a key given twice in JSON, which JSON.parse lets pass, with the lines of both', () => {
    const text = '{\n  "upstreams": {\n    "fs": { "command": "npx" },\n    "fs": { "command": "node" }\n  }\n}';
    const error = failure(() => readDocument(text, 'json', { source: 'g.json' }));
    expect(error.field).toBe('upstreams.fs');
    expect(error.line).toBe(4);
    expect(error.message).toBe(
      'g.json line 4: upstreams.fs appears twice in one object (lines 3 and 4): give each key once',
    );
    const nested = failure(() => readDocument('{"a": [{"b": {"c": 1, "c": 2}}]}', 'json'));
    expect(nested.field).toBe('a[0].b.c');
  });

  it('refuses aliases to anchors that do not exist, and alias bombs', () => {
    expect(failure(() => readDocument('a: *nowhere\n', 'yaml')).message).toContain('the document');
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]'];
    bomb.push('c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]');
    expect(failure(() => readDocument(bomb.join('\n'), 'yaml')).message).toContain('cannot be read');
  });

  it('refuses tagged values and values JSON cannot hold, at their line', () => {
    const error = failure(() => readDocument('a:\n  b: !!binary aGk=\n', 'yaml'));
    expect(error.field).toBe('a.b');
    expect(error.line).toBe(2);
    expect(failure(() => readDocument('a: .nan\n', 'yaml')).message).toContain('a must be a finite number, got NaN');
    expect(failure(() => readDocument('a: !custom x\n', 'yaml')).message).toContain('not valid YAML');
  });
});

describe('plainDataFault', () => {
  it('accepts JSON data and finds the first value that is not', () => {
    expect(plainDataFault({ a: [1, 'x', null, true, { b: {} }] })).toBeUndefined();
    expect(plainDataFault({ a: [1, new Date(0)] })?.path).toEqual(['a', 1]);
    expect(plainDataFault({ a: new Map() })?.path).toEqual(['a']);
    expect(plainDataFault({ a: Number.POSITIVE_INFINITY })?.problem).toContain('finite');
  });

  it('refuses documents nested too deep', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100; level += 1) deep = [deep];
    expect(plainDataFault(deep)?.problem).toContain('deeper than 64 levels');
  });
});
