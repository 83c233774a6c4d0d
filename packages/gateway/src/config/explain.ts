/**
 * The first place a value breaks a schema, said for a person: which field,
 * what is wrong, and what the schema allows there. Unions are explained by
 * the branch the value was meant for (an upstream with `command` is checked
 * as a stdio upstream), not by every branch at once. Pure.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { preview, type ConfigFault, type FieldPath } from './errors.js';
import { PATTERN_NAMES } from './patterns.js';

/** A JSON Schema node as TypeBox builds it. */
type Schema = Readonly<Record<string, unknown>>;

const checks = new WeakMap<object, (value: unknown) => boolean>();
const keyPatterns = new Map<string, RegExp>();

function accepts(schema: Schema, value: unknown): boolean {
  let check = checks.get(schema);
  if (check === undefined) {
    const compiled = Compile(schema as TSchema);
    check = (candidate) => compiled.Check(candidate);
    checks.set(schema, check);
  }
  return check(value);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function schemaMap(value: unknown): Readonly<Record<string, Schema>> {
  return isSchema(value) ? (value as Record<string, Schema>) : {};
}

function keyPattern(source: string): RegExp {
  let pattern = keyPatterns.get(source);
  if (pattern === undefined) {
    pattern = new RegExp(source, 'u');
    keyPatterns.set(source, pattern);
  }
  return pattern;
}

/** `a`, `a or b`, `a, b or c`. */
function either(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1) ?? ''}`;
}

function fieldList(names: readonly string[]): string {
  return names.map((name) => `\`${name}\``).join(', ');
}

function bounds(schema: Schema): string {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const rawMax = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  // The largest safe integer is there to keep counters exact, not a limit anyone picks.
  const max = rawMax === Number.MAX_SAFE_INTEGER ? undefined : rawMax;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  return max === undefined ? '' : ` of at most ${max}`;
}

function describeString(schema: Schema): string {
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  if (pattern !== undefined) return PATTERN_NAMES[pattern] ?? `a string matching /${pattern}/`;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  if (max !== undefined)
    return min > 0 ? `a string of ${min} to ${max} characters` : `a string of at most ${max} characters`;
  if (min === 1) return 'a non-empty string';
  return min > 1 ? `a string of at least ${min} characters` : 'a string';
}

function describeObject(schema: Schema): string {
  if (isSchema(schema.patternProperties)) return 'a map';
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (required.length > 0) return `an object with ${fieldList(required)}`;
  const known = Object.keys(schemaMap(schema.properties));
  return known.length > 0 ? `an object with fields ${fieldList(known)}` : 'an object';
}

/** What `schema` allows, in words: `an integer of at least 1`, `"safe", "reversible" or "destructive"`. */
export function describeSchema(schema: TSchema | Schema): string {
  return describe(schema as Schema);
}

function describe(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return either(schema.enum.map((item) => JSON.stringify(item)));
  if (Array.isArray(schema.anyOf)) return either(schema.anyOf.filter(isSchema).map(describe));
  switch (schema.type) {
    case 'string':
      return describeString(schema);
    case 'integer':
      return `an integer${bounds(schema)}`;
    case 'number':
      return `a number${bounds(schema)}`;
    case 'boolean':
      return 'a boolean';
    case 'null':
      return 'null';
    case 'array':
      return isSchema(schema.items) ? `a list, each item ${describe(schema.items)}` : 'a list';
    case 'object':
      return describeObject(schema);
    default:
      return 'any value';
  }
}

type Kind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'other';

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'object' || type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'other';
}

function branchKinds(schema: Schema): readonly Kind[] {
  if (schema.const !== undefined) return [kindOf(schema.const)];
  if (Array.isArray(schema.enum)) return schema.enum.map(kindOf);
  if (Array.isArray(schema.anyOf)) return schema.anyOf.filter(isSchema).flatMap(branchKinds);
  if (schema.type === 'integer') return ['number'];
  if (typeof schema.type === 'string') return [schema.type as Kind];
  return ['object', 'array', 'string', 'number', 'boolean', 'null'];
}

function isContainer(schema: Schema): boolean {
  return schema.type === 'object' || schema.type === 'array' || Array.isArray(schema.anyOf);
}

/** How many of the value's fields a branch knows: the branch the author meant knows the most. */
function overlap(schema: Schema, value: unknown): number {
  if (!isPlainObject(value) || schema.type !== 'object') return 0;
  const known = schemaMap(schema.properties);
  return Object.keys(value).filter((key) => Object.hasOwn(known, key)).length;
}

function meantBranch(branches: readonly Schema[], value: unknown): Schema | undefined {
  const candidates = branches.filter((branch) => branchKinds(branch).includes(kindOf(value)));
  if (candidates.length <= 1) return candidates[0];
  const scores = candidates.map((branch) => overlap(branch, value));
  const best = Math.max(...scores);
  const winners = candidates.filter((_, index) => scores[index] === best);
  return best > 0 && winners.length === 1 ? winners[0] : undefined;
}

/** When no object branch is clearly meant: a field none of them knows, or fields of several at once. */
function mixedObjectFault(
  schema: Schema,
  branches: readonly Schema[],
  value: unknown,
  path: FieldPath,
): ConfigFault | undefined {
  const objects = branches.filter((branch) => branch.type === 'object' && branch.additionalProperties === false);
  if (!isPlainObject(value) || objects.length < 2) return undefined;
  const known = [...new Set(objects.flatMap((branch) => Object.keys(schemaMap(branch.properties))))];
  const stranger = Object.keys(value).find((key) => !known.includes(key));
  if (stranger !== undefined) {
    return { path: [...path, stranger], problem: `is not a known field (known: ${known.join(', ')})` };
  }
  return Object.keys(value).length > 0
    ? { path, problem: `must be ${describe(schema)}, not a mix of them` }
    : undefined;
}

function unionFault(schema: Schema, value: unknown, path: FieldPath): ConfigFault | undefined {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isSchema) : [];
  const branch = meantBranch(branches, value);
  if (branch === undefined) return mixedObjectFault(schema, branches, value, path);
  return isContainer(branch) ? explainNode(branch, value, path) : undefined;
}

function unexpectedKey(schema: Schema, key: string, path: FieldPath): ConfigFault {
  const patterns = Object.keys(schemaMap(schema.patternProperties));
  if (patterns.length > 0) {
    const allowed = either(patterns.map((source) => PATTERN_NAMES[source] ?? `a key matching /${source}/`));
    return { path: [...path, key], problem: `is not an accepted key: use ${allowed}` };
  }
  const known = Object.keys(schemaMap(schema.properties));
  return { path: [...path, key], problem: `is not a known field (known: ${known.join(', ')})` };
}

function propertySchema(schema: Schema, key: string): Schema | undefined {
  const properties = schemaMap(schema.properties);
  if (Object.hasOwn(properties, key)) return properties[key];
  const patterns = schemaMap(schema.patternProperties);
  const source = Object.keys(patterns).find((pattern) => keyPattern(pattern).test(key));
  if (source !== undefined) return patterns[source];
  return isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function objectFault(schema: Schema, value: Record<string, unknown>, path: FieldPath): ConfigFault | undefined {
  for (const [key, item] of Object.entries(value)) {
    const itemSchema = propertySchema(schema, key);
    if (itemSchema === undefined) {
      if (schema.additionalProperties === false) return unexpectedKey(schema, key, path);
      continue;
    }
    const fault = explainNode(itemSchema, item, [...path, key]);
    if (fault !== undefined) return fault;
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const missing = required.find((key) => !Object.hasOwn(value, key));
  if (missing !== undefined) return { path: [...path, missing], problem: 'is required' };
  const least = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  if (Object.keys(value).length < least)
    return { path, problem: `must have at least ${least} entr${least === 1 ? 'y' : 'ies'}` };
  return undefined;
}

function arrayFault(schema: Schema, value: readonly unknown[], path: FieldPath): ConfigFault | undefined {
  if (isSchema(schema.items)) {
    for (const [index, item] of value.entries()) {
      const fault = explainNode(schema.items, item, [...path, index]);
      if (fault !== undefined) return fault;
    }
  }
  const least = typeof schema.minItems === 'number' ? schema.minItems : 0;
  if (value.length < least) return { path, problem: `must list at least ${least} item${least === 1 ? '' : 's'}` };
  return undefined;
}

function structuralFault(schema: Schema, value: unknown, path: FieldPath): ConfigFault | undefined {
  if (Array.isArray(schema.anyOf)) return unionFault(schema, value, path);
  if (schema.type === 'object' && isPlainObject(value)) return objectFault(schema, value, path);
  if (schema.type === 'array' && Array.isArray(value)) return arrayFault(schema, value, path);
  return undefined;
}

function shown(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  return preview(value);
}

/**
 * The first fault of `value` against `schema` (fields in document order,
 * then missing ones), or `undefined` when it conforms. Never throws.
 */
export function explain(schema: TSchema | Schema, value: unknown, path: FieldPath = []): ConfigFault | undefined {
  return explainNode(schema as Schema, value, path);
}

function explainNode(schema: Schema, value: unknown, path: FieldPath): ConfigFault | undefined {
  if (accepts(schema, value)) return undefined;
  return (
    structuralFault(schema, value, path) ?? {
      path,
      problem: `must be ${describe(schema)}, got ${shown(value)}`,
    }
  );
}
