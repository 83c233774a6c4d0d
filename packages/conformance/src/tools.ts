/** The server's tools as checks use them: sample and invalid arguments built from input schemas, and text content. */
import { isRecord } from '@ext/core/kit';
import type { ListedTool } from './types.js';

/**
 * Arguments that satisfy a tool's input schema, built from the schema alone:
 * required properties only, each given a plain value of its type (first
 * enum value, `minimum`, a string of `minLength`). `undefined` when the
 * schema asks for something this cannot build (nested required objects
 * with constraints it does not read, `oneOf`, patterns).
 */
export function sampleArguments(tool: ListedTool): Record<string, unknown> | undefined {
  const schema = tool.inputSchema;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const value = sampleValue(properties[name]);
    if (value === undefined) return undefined;
    args[name] = value;
  }
  return args;
}

function sampleValue(schema: unknown): unknown {
  if (!isRecord(schema)) return undefined;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (typeof schema.pattern === 'string' || typeof schema.format === 'string') return undefined;
  switch (schema.type) {
    case 'string': {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'c'.repeat(Math.max(1, min));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum + 1
          : 1;
    case 'boolean':
      return false;
    case 'array':
      return typeof schema.minItems === 'number' && schema.minItems > 0 ? undefined : [];
    case 'object': {
      const required = Array.isArray(schema.required) ? schema.required : [];
      return required.length === 0 ? {} : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The sample arguments with one property changed to another value its
 * schema still accepts (a string lengthened, a number raised, a boolean
 * flipped), naming it; `undefined` when no property is of a kind this can
 * vary without reading constraints it does not know (enums, patterns,
 * formats, arrays and objects).
 */
export function variedArguments(
  tool: ListedTool,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; field: string } | undefined {
  const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  for (const [field, declared] of Object.entries(properties)) {
    if (!isRecord(declared) || 'enum' in declared || 'const' in declared) continue;
    if (typeof declared.pattern === 'string' || typeof declared.format === 'string') continue;
    const current = args[field];
    const value = variedValue(declared, current);
    if (value !== undefined) return { args: { ...args, [field]: value }, field };
  }
  return undefined;
}

function variedValue(schema: Record<string, unknown>, current: unknown): unknown {
  switch (schema.type) {
    case 'string': {
      if (typeof schema.maxLength === 'number') return undefined;
      const shortest = 'c'.repeat(typeof schema.minLength === 'number' ? Math.max(1, schema.minLength) : 1);
      return `${typeof current === 'string' ? current : shortest}-other`;
    }
    case 'integer':
    case 'number': {
      if (typeof schema.maximum === 'number' || typeof schema.exclusiveMaximum === 'number') return undefined;
      const floor =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : 1;
      return (typeof current === 'number' ? Math.max(current, floor) : Math.max(floor, 1)) + 1;
    }
    case 'boolean':
      return current !== true;
    default:
      return undefined;
  }
}

/**
 * Arguments that break a tool's input schema on purpose: a required
 * property of the wrong type, or else a declared property of the wrong
 * type. `undefined` when the schema accepts anything.
 */
export function invalidArguments(tool: ListedTool): { args: Record<string, unknown>; field: string } | undefined {
  const schema = tool.inputSchema;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const candidates = [...required, ...Object.keys(properties).filter((name) => !required.includes(name))];
  for (const field of candidates) {
    const declared = properties[field];
    if (!isRecord(declared) || typeof declared.type !== 'string') continue;
    const wrong = declared.type === 'object' ? 'not-an-object' : { wrong: 'type' };
    const base = sampleArguments(tool) ?? {};
    return { args: { ...base, [field]: wrong }, field };
  }
  return undefined;
}

/** Tools the kit may execute: they say they are read-only and it can build their arguments. */
export function safeTools(tools: readonly ListedTool[]): { tool: ListedTool; args: Record<string, unknown> }[] {
  const out: { tool: ListedTool; args: Record<string, unknown> }[] = [];
  for (const tool of tools) {
    if (tool.annotations?.readOnlyHint !== true) continue;
    const args = sampleArguments(tool);
    if (args !== undefined) out.push({ tool, args });
  }
  return out;
}

/** The text of a result's first text block ('' when none). */
export function firstText(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const block = content.find((entry) => isRecord(entry) && entry.type === 'text');
  return isRecord(block) && typeof block.text === 'string' ? block.text : '';
}

/** Whether `tool` needs a person's confirmation (`_meta["io.github.mcp-ext/confirmation"].requires_confirmation`). */
export function needsConfirmation(tool: ListedTool): boolean {
  const confirmation = tool._meta?.['io.github.mcp-ext/confirmation'];
  return isRecord(confirmation) && confirmation.requires_confirmation === true;
}

/** Whether `tool` declares scopes a caller needs (`_meta["io.github.mcp-ext/permissions"].required_scopes`). */
export function needsScopes(tool: ListedTool): boolean {
  const permissions = tool._meta?.['io.github.mcp-ext/permissions'];
  return isRecord(permissions) && Array.isArray(permissions.required_scopes) && permissions.required_scopes.length > 0;
}

/** An idempotency key no other run uses. */
export function freshKey(): string {
  return `conformance-${String(Date.now())}-${Math.random().toString(36).slice(2, 10)}`;
}
