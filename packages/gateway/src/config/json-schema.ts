/**
 * The config schema for people and editors: the JSON Schema 2020-12 document
 * shipped as `gateway.schema.json`, and the markdown reference of every field
 * the README carries between its `config-reference` markers. Pure.
 */
import { describeSchema } from './explain.js';
import { PATTERN_NAMES } from './patterns.js';
import { GatewayConfigSchema } from './schema.js';

type Schema = Readonly<Record<string, unknown>>;

/** The JSON Schema (2020-12) of a gateway config file. */
export function gatewayJsonSchema(): Record<string, unknown> {
  const schema = JSON.parse(JSON.stringify(GatewayConfigSchema)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schema.$id,
    title: schema.title,
    description: 'The config file of @ext/gateway (`mcp-ext-gateway --config <file>`), in YAML or JSON.',
    ...schema,
  };
}

/** How a map's keys are shown in the reference, by the path of the map. */
const KEY_NAMES: Readonly<Record<string, string>> = {
  upstreams: '<name>',
  policy: '<glob>',
};

interface Row {
  readonly path: string;
  readonly type: string;
  readonly default: string;
  readonly description: string;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function branches(schema: Schema): Schema[] {
  return Array.isArray(schema.anyOf) ? schema.anyOf.filter(isSchema) : [];
}

function mapValue(schema: Schema): Schema | undefined {
  const patterns = schema.patternProperties;
  return isSchema(patterns) ? Object.values(patterns).find(isSchema) : undefined;
}

function typeName(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) return branches(schema).map(typeName).join(' | ');
  if (typeof schema.title === 'string') return schema.title;
  const value = mapValue(schema);
  if (value !== undefined) return `map of ${typeName(value)}`;
  if (schema.type === 'array') return `list of ${isSchema(schema.items) ? typeName(schema.items) : 'any'}`;
  if (schema.type === 'object') return objectName(schema);
  return typeof schema.type === 'string' ? schema.type : 'any';
}

/** An untitled object by its fields, when they are few: `{ sqlite }`, `{ message, risk }`. */
function objectName(schema: Schema): string {
  const fields = Object.keys(isSchema(schema.properties) ? schema.properties : {});
  return fields.length > 0 && fields.length <= 3 ? `{ ${fields.join(', ')} }` : 'object';
}

/** What a leaf allows beyond its type, when there is something to say. */
function allowed(schema: Schema): string | undefined {
  if (typeof schema.pattern === 'string' && PATTERN_NAMES[schema.pattern] !== undefined) {
    return PATTERN_NAMES[schema.pattern];
  }
  if (schema.type === 'array' && isSchema(schema.items)) {
    const item = allowed(schema.items);
    return item === undefined ? undefined : `each item ${item}`;
  }
  const bounded = ['minimum', 'maximum', 'minLength', 'maxLength'].some((key) => typeof schema[key] === 'number');
  return bounded && schema.type !== 'object' ? describeSchema(schema) : undefined;
}

/** What a map's keys may be. */
function allowedKeys(schema: Schema): string | undefined {
  const patterns = isSchema(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
  const names = patterns.map((pattern) => PATTERN_NAMES[pattern]).filter((name) => name !== undefined);
  return names.length > 0 ? names.join(' or ') : undefined;
}

function row(path: string, schema: Schema): Row {
  const notes = [
    typeof schema.description === 'string' ? schema.description : undefined,
    allowedKeys(schema) === undefined ? undefined : `Keys: ${allowedKeys(schema) ?? ''}.`,
    allowed(schema) === undefined ? undefined : `Allowed: ${allowed(schema) ?? ''}.`,
  ];
  return {
    path,
    type: typeName(schema),
    default: schema.default === undefined ? '' : `\`${JSON.stringify(schema.default)}\``,
    description: notes.filter((note) => note !== undefined).join(' '),
  };
}

/** The schemas whose fields are listed under `path`: an object's, a union's objects', a list's items'. */
function children(schema: Schema, path: string): [string, Schema][] {
  if (Array.isArray(schema.anyOf)) return branches(schema).flatMap((branch) => children(branch, path));
  if (schema.type === 'array' && isSchema(schema.items)) return children(schema.items, `${path}[]`);
  const value = mapValue(schema);
  if (value !== undefined) {
    const key = KEY_NAMES[path];
    return key === undefined ? [] : children(value, `${path}.${key}`);
  }
  const properties = isSchema(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .filter((entry): entry is [string, Schema] => isSchema(entry[1]))
    .map(([name, child]) => [path === '' ? name : `${path}.${name}`, child]);
}

function collect(schema: Schema, path: string, rows: Row[]): void {
  for (const [childPath, child] of children(schema, path)) {
    if (rows.some((existing) => existing.path === childPath)) continue;
    rows.push(row(childPath, child));
    collect(child, childPath, rows);
  }
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** A markdown table of every config field: path, type, default and description, from the schema. */
export function configReference(): string {
  const rows: Row[] = [];
  collect(GatewayConfigSchema as unknown as Schema, '', rows);
  const lines = rows.map(
    (entry) => `| \`${entry.path}\` | ${cell(entry.type)} | ${cell(entry.default)} | ${cell(entry.description)} |`,
  );
  return ['| Field | Type | Default | Description |', '| --- | --- | --- | --- |', ...lines].join('\n');
}

export const REFERENCE_START = '<!-- config-reference:start -->';
export const REFERENCE_END = '<!-- config-reference:end -->';

/** `readme` with the block between the reference markers replaced by `reference`; throws if a marker is missing. */
export function withConfigReference(readme: string, reference: string = configReference()): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error(`the README needs ${REFERENCE_START} and then ${REFERENCE_END}`);
  const note = '<!-- Generated from src/config/schema.ts by `pnpm --filter @ext/gateway docs`: do not edit. -->';
  const block = `${REFERENCE_START}\n${note}\n\n${reference}\n\n${REFERENCE_END}`;
  return `${readme.slice(0, start)}${block}${readme.slice(end + REFERENCE_END.length)}`;
}
